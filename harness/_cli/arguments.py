"""Argument types shared by the subcommands: each a one-line error, never a traceback."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Iterable, Iterator

from harness.errors import UsageError

__all__ = [
    "AUTO_JOBS",
    "EXIT_STATUSES",
    "README_SECTION",
    "check_outputs",
    "jobs",
    "names",
    "positive_int",
    "seconds",
]

README_SECTION = "docs/cli.md, the command line"
"""Where the full command-line reference lives."""

EXIT_STATUSES = f"""\
exit status:
  0    every case passed (or, for other commands, nothing to report)
  1    a case failed or errored (check: a fixture has an error)
  2    the run could not start: bad usage or config, a fixture rejected at load,
       an agent command that cannot start, a selection of no case
  130  stopped by SIGINT (Ctrl-C), after reporting the cases that finished
  143  stopped by SIGTERM, likewise

Reference: {README_SECTION}."""
"""The epilog of `harness --help` and of each subcommand's help."""


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


AUTO_JOBS = 0
"""What `jobs` gives for `auto`: the run decides (`harness.pipeline.suite.AUTO`)."""


def jobs(text: str) -> int:
    """A whole number >= 1, or `auto` (0): workers where they can win, one per core."""
    if text.strip() == "auto":
        return AUTO_JOBS
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number >= 1 or auto, got {text!r}"
        ) from None


def seconds(text: str) -> float:
    """A finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def names(text: str) -> tuple[str, ...]:
    """A comma-separated list of names (`a,b`), none of them empty."""
    listed = tuple(name.strip() for name in text.split(","))
    if not all(listed):
        raise argparse.ArgumentTypeError(f"expected names separated by commas, got {text!r}")
    return listed


def check_outputs(
    args: argparse.Namespace,
    config: str | None = None,
    histories: Iterable[str | None] = (),
    suite: str | None = None,
) -> None:
    """Refuse, before anything runs, an output path of `harness run` that could not be
    written after it, or that would replace what is not its own.

    `config` and `histories` are the files the run reads or keeps (the config, the history
    database and the last-failed cache beside it); `suite` is the suite folder, where no
    `.json` report may land (the next run would read it as a fixture).

    Raises:
        UsageError: A path is empty, stands under a file or an unwritable folder, is a
            socket or a block device, holds a file not of its kind, names one of `inputs`, a
            `.json` file in the suite folder, or the same file as another output (or as
            `--baseline`, which it would overwrite).
    """
    from harness.reports.artifact import BASELINE, HTML, JSON_REPORT, JUNIT, check_output

    if args.baseline == "":  # an unset variable in CI: never a run without its gate, unsaid
        raise UsageError("--baseline: the path is empty")
    known = {os.path.realpath(path): what for path, what in _inputs(config, histories) if path}
    outputs = [
        (flag, path, kind)
        for flag, path, kind in (
            ("--json", args.json, JSON_REPORT),
            ("--junit", args.junit, JUNIT),
            ("--html", args.html, HTML),
            ("--write-baseline", args.write_baseline, BASELINE),
            ("--dump-records", args.dump_records, None),
        )
        if path is not None
    ]
    files: dict[str, str] = {}
    for flag, path, _ in outputs:  # first: a clash names both, which is the clearer line
        real = os.path.realpath(path) if path else ""
        if real in files:  # one would overwrite the other
            raise UsageError(f"{flag} {path}: the same file as {files[real]}")
        files[real] = flag
    clash = files.get(os.path.realpath(args.baseline)) if args.baseline else None
    if clash is not None and clash != "--write-baseline":  # refreshing a baseline is fine
        raise UsageError(f"{clash} {args.baseline}: the same file as --baseline")
    for flag, path, kind in outputs:
        real = os.path.realpath(path)
        if real in known:
            raise UsageError(f"{flag} {path}: it is {known[real]}, which no output replaces")
        check_output(flag, path, folder=flag == "--dump-records", kind=kind)
        if suite is not None and _in_suite(real, suite, folder=flag == "--dump-records"):
            raise UsageError(f"{flag} {path}: the next run would read it as a fixture of the suite")


def _inputs(
    config: str | None, histories: Iterable[str | None]
) -> Iterator[tuple[str | None, str]]:
    from harness._cli.last_failed import cache_path

    yield config, "the config"
    for history in histories:
        if history:
            yield history, "the history database"
            yield cache_path(history), "the last-failed cache"


def _in_suite(real: str, suite: str, *, folder: bool) -> bool:
    """Whether the output at `real` (a real path) would be read as a fixture of the suite:
    a `.json` file directly in its folder, or the folder itself for one that gets them."""
    home = os.path.realpath(suite)
    if folder:
        return real == home
    return os.path.dirname(real) == home and real.endswith(".json")

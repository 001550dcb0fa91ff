"""Argument types shared by the subcommands: each a one-line error, never a traceback."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Iterator

from harness._cli.last_failed import cache_path
from harness.config import MAX_SECONDS
from harness.errors import UsageError
from harness.reports.artifact import BASELINE, HTML, JSON_REPORT, JUNIT, check_output

__all__ = [
    "AUTO_JOBS",
    "CLI_REFERENCE",
    "EXIT_STATUSES",
    "MAX_COUNT",
    "check_outputs",
    "jobs",
    "names",
    "non_empty",
    "path_arg",
    "positive_int",
    "seconds",
    "typed",
]

CLI_REFERENCE = "docs/cli.md, the command line"
"""Where the full command-line reference lives."""

EXIT_STATUSES = f"""\
exit status:
  0    every case passed (or, for other commands, nothing to report)
  1    a case failed or errored (check: a fixture has an error)
  2    the run could not start: bad usage or config, a fixture rejected at load,
       an agent command that cannot start, a selection of no case
  130  stopped by SIGINT (Ctrl-C), after reporting the cases that finished
  143  stopped by SIGTERM, likewise

Reference: {CLI_REFERENCE}."""
"""The epilog of `harness --help` and of each subcommand's help."""


MAX_COUNT = 1_000_000
"""The largest count a flag takes (`--last`, `--jobs`): beyond it, a typo, and past 2**63 more
than SQLite can hold."""


def positive_int(text: str) -> int:
    """A whole number from 1 to `MAX_COUNT`."""
    try:
        value = int(text)
    except ValueError:  # also a number of more digits than int() reads
        value = 0
    if not 1 <= value <= MAX_COUNT:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 1 to {MAX_COUNT}, got {text[:40]!r}"
        )
    return value


AUTO_JOBS = 0
"""What `jobs` gives for `auto`: the run decides (`harness.pipeline.dispatch.AUTO`)."""


def jobs(text: str) -> int:
    """A whole number from 1 to `MAX_COUNT`, or `auto` (0): workers where they win, one a core."""
    if text.strip() == "auto":
        return AUTO_JOBS
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 1 to {MAX_COUNT}, or auto, got {text[:40]!r}"
        ) from None


def seconds(text: str) -> float:
    """A finite number of seconds > 0 (at most `MAX_SECONDS`: a bound every timer holds)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= MAX_SECONDS:  # nan and inf fail this too
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds > 0 and <= {MAX_SECONDS}, got {text!r}"
        )
    return value


def typed(parser: argparse.ArgumentParser) -> None:
    """Give a command's flags that name an agent, its tools or a suite the types below, which
    refuse what would silently mean the default (an empty value) or open nothing (a NUL)."""
    types = {"agent": non_empty, "tools": non_empty, "agent_command": non_empty}
    types |= {"suite": path_arg, "paths": path_arg}
    for action in parser._actions:
        action.type = types.get(action.dest, action.type)


def path_arg(text: str) -> str:
    """A file or folder path: no NUL (no system call takes one, so nothing could open it)."""
    if "\x00" in text:
        raise argparse.ArgumentTypeError(f"{text[:40]!r}: a path cannot contain a NUL character")
    return text


def non_empty(text: str) -> str:
    """A value that names something (a command, a factory): empty, it would silently mean
    the default (an unset variable in CI), so it is refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a value, got an empty string")
    if "\x00" in text:
        raise argparse.ArgumentTypeError("expected a value without a NUL character")
    return text


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

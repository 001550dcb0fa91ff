"""`harness run`: set up -> load -> select -> play (each case graded) -> write -> decide."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from harness._cli import arguments, guard
from harness._cli.agent_arguments import add_agent_arguments, agent_settings
from harness._cli.arguments import check_outputs, jobs
from harness._cli.baselines import read_gate
from harness.config import MODES, Config, find_pyproject, load_config
from harness.errors import UsageError
from harness.pipeline.interrupt import stops_held
from harness.pipeline.setup import setup_from, tool_surface
from harness.reports.outputs import show_json, show_lines, to_stdout

if TYPE_CHECKING:
    from harness._cli.progress import Progress
    from harness.fixtures.suite import Suite
    from harness.history.writer import HistoryWriter
    from harness.pipeline.workflow import RunOptions, RunWriters, Written
    from harness.reports.model import SuiteReport
    from harness.reports.recap import Paint

__all__ = ["LIVE_MODE_MESSAGE", "register", "show"]

LIVE_MODE_MESSAGE = "live mode is not implemented yet (Phase 0 supports --mode replay only)"


def register(commands: Any) -> None:
    """Add `run` to the subcommands."""
    run = commands.add_parser(
        "run",
        help="replay a suite and report pass/fail",
        description="Replay a suite's fixtures through the agent and grade them.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "paths",
        metavar="PATH",
        nargs="*",
        help="fixture files or a suite folder to run (default: the whole suite)",
    )
    run.add_argument("--suite", metavar="DIR", help="suite folder (default: config suite_dir)")
    run.add_argument("--mode", choices=MODES, help="replay or live (default: config mode, replay)")
    run.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="what stdout shows (default: table)",
    )
    run.add_argument("--json", metavar="PATH", help="also write the JSON report (default: none)")
    run.add_argument("--junit", metavar="PATH", help="also write JUnit XML (default: none)")
    run.add_argument("--html", metavar="PATH", help="also write the HTML report (default: none)")
    run.add_argument(
        "--junit-flavor",
        choices=("full", "strict"),
        default="full",
        help="full: testcase file/line for CI reporters; strict: junit-10 (default: full)",
    )
    run.add_argument(
        "--history",
        metavar="PATH",
        nargs="?",
        const="",
        help="record the run in the history (default: off; PATH: config history)",
    )
    add_agent_arguments(run)
    run.add_argument(
        "--jobs",
        metavar="N|auto",
        type=jobs,
        default=1,
        help="worker processes, or auto: one per core (default: 1)",
    )
    run.add_argument(
        "--shard",
        metavar="I/N|auto",
        help="run shard I of N of the sorted suite; auto: CI_NODE_INDEX/TOTAL (default: off)",
    )
    run.add_argument("-k", dest="keyword", metavar="EXPR", help=_KEYWORD_HELP)
    run.add_argument(
        "-x",
        "--exitfirst",
        action="store_true",
        help="stop at the first failed or errored case (default: off)",
    )
    run.add_argument(
        "--lf",
        "--last-failed",
        dest="last_failed",
        action="store_true",
        help="run only the cases that failed or errored last time (default: off)",
    )
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print each case's verdict as it finishes (default: off)",
    )
    run.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="color the output; auto: on a terminal, unless NO_COLOR (default: auto)",
    )
    run.add_argument(
        "--config", metavar="PATH", help="pyproject.toml to read (default: the nearest)"
    )
    run.add_argument(
        "-s",
        "--capture",
        nargs="?",
        const="no",
        default="fd",
        choices=("fd", "no"),
        help="fd: capture the agent's output per case; -s or no: show it live (default: fd)",
    )
    run.add_argument(
        "--dump-records",
        metavar="DIR",
        help="write one JSON file per failed or errored case (default: none)",
    )
    run.add_argument(
        "--baseline",
        metavar="PATH",
        help="gate only on cases that passed in this baseline and fail now (default: none)",
    )
    run.add_argument(
        "--write-baseline",
        metavar="PATH",
        help="write this run's per-case verdicts to PATH (default: none)",
    )
    arguments.typed(run)
    run.set_defaults(handler=run_command)


_KEYWORD_HELP = (
    "run the cases whose name or path contains the words, joined by not/and/or (default: all)"
)


def run_command(args: argparse.Namespace) -> int:
    """Replay the suite, report it, and return the exit status `decide` gives."""
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    """set up -> load -> select -> play (each case graded) -> write -> decide -> show."""
    from harness._cli.last_failed import cache_path, remember
    from harness._cli.scope import suite_folder
    from harness.pipeline.workflow import RunWriters, decide, load, play, write
    from harness.reports.provenance import git_commit

    config_path, config, mode = _load_config(args)
    overrides = agent_settings(args, capture=args.capture != "no")
    setup, tool_names = setup_from(config, config_path, overrides)
    folder = suite_folder(args.suite, args.paths, config.suite_dir)
    check_outputs(args, config_path, (config.history, args.history), folder)
    # The baseline's suite, mode and tool surface are checked now, before anything runs.
    baseline = read_gate(args.baseline, folder, mode, tool_surface(setup))
    suite = load(folder, config, setup, tool_names, jobs=args.jobs)
    cache = cache_path(config.history)
    suite = _select(args, suite, cache)
    options = _options(
        args, mode, history=None if args.history is None else (args.history or config.history)
    )
    paint, progress = _terminal(args, suite.count)
    history = _history(options.history)
    writers = RunWriters(options, extra=[w for w in (history, progress) if w is not None])
    guard.arm()  # from here until the reports are written, nothing may end the run with 0
    try:
        if progress is not None:
            progress.start()
        try:
            head = play(suite, setup, options, writers.add)
        finally:
            if progress is not None:
                progress.finish()
        expected = suite.count
        del suite  # the decoded fixtures can go before the reports are finished
        with stops_held() as stopped:  # a stop now waits until every report is whole
            written = write(
                writers, head, expected=expected, baseline=baseline, git_commit=git_commit() or None
            )
            if history is not None:
                _record(history, writers, head)
        status = decide(written.ran.stopped_by(stopped), written.comparison)
        guard.disarm()  # the reports are written: the status is theirs
        remember(cache, written.shown)
        others = (options.write_baseline, options.baseline, options.html, options.history)
        show(options, writers, written, paint, others=[path for path in others if path])
    finally:
        writers.discard()
        if history is not None:
            history.discard()
    return status


def _load_config(args: argparse.Namespace) -> tuple[str | None, Config, str]:
    """The config file, its `[tool.harness]`, and the mode to run in."""
    if args.mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    config_path = args.config if args.config is not None else find_pyproject()
    config = load_config(config_path)
    mode = args.mode or config.mode
    if mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    return config_path, config, mode


def _select(args: argparse.Namespace, suite: Suite, cache: str) -> Suite:
    """The cases chosen: paths, `-k`, `--lf`, then the shard."""
    from harness._cli.scope import apply_selection
    from harness.fixtures.shard import parse_shard

    suite = apply_selection(suite, args, cache)
    return suite.sharded(parse_shard(args.shard)) if args.shard else suite


def _options(args: argparse.Namespace, mode: str, *, history: str | None) -> RunOptions:
    """What the command line asks of the run."""
    from harness.pipeline.workflow import RunOptions
    from harness.reports.github import in_github

    return RunOptions(
        mode=mode,
        jobs=args.jobs,
        exitfirst=args.exitfirst,
        output_format=args.format,
        json=args.json,
        junit=args.junit,
        junit_flavor=args.junit_flavor,
        html=args.html,
        history=history,
        dump_records=args.dump_records,
        baseline=args.baseline,
        write_baseline=args.write_baseline,
        publish=in_github(),
    )


def _terminal(args: argparse.Namespace, total: int) -> tuple[Paint | None, Progress | None]:
    """The table's colors and the progress line, as the terminal and the flags ask."""
    paint, terminal = None, False
    if args.format == "table" or args.verbose:  # a JSON run imports nothing for the terminal
        from harness._cli.color import is_terminal, palette, use_color

        paint = palette(use_color(args.color, sys.stdout))
        terminal = is_terminal(sys.stdout)
    return paint, _progress(args, total, paint, terminal=terminal)


def _history(path: str | None) -> HistoryWriter | None:
    if path is None:
        return None
    from harness.history.writer import HistoryWriter

    return HistoryWriter(path)


def _record(history: HistoryWriter, writers: RunWriters, head: SuiteReport) -> None:
    """Record the run in the history, unless a partial run would skew the trend."""
    if not _recordable(head):
        return
    report = writers.json
    assert report is not None  # a history run always makes the JSON report, for its id
    assert report.run_id is not None
    history.close(report.run_id, report.document())


def show(
    options: RunOptions,
    writers: RunWriters,
    written: Written,
    paint: Paint | None,
    *,
    others: Sequence[str] = (),
) -> None:
    """Show the report on stdout, then the GitHub summary (appended to none of `others`, the
    run's other files); neither changes the exit status."""
    comparison, head = written.comparison, written.shown
    if options.output_format == "json":
        assert writers.json is not None
        ok = to_stdout(show_json(writers.json.pieces()))
        if comparison is not None:  # stdout is the document: the comparison goes beside it
            print(comparison.render(), file=sys.stderr)
    elif comparison is not None:
        lines = writers.table.close(head, paint, comparison.marks())
        ok = to_stdout(show_lines(lines, comparison.render()))
    else:
        ok = to_stdout(show_lines(writers.table.close(head, paint)))
    if writers.summary is None:
        return
    summary, artifacts = writers.summary, [path for path in (options.json, options.junit) if path]
    if ok:
        to_stdout(lambda _: summary.close(head, options.output_format, artifacts, others))
    else:  # stdout is gone: the job summary is still a file worth writing
        with contextlib.suppress(OSError, ValueError):
            summary.close(head, "json", artifacts, others)


def _progress(
    args: argparse.Namespace, total: int, paint: Any, *, terminal: bool
) -> Progress | None:
    """The progress line (table output on a terminal) and `-v` lines, or None for neither.

    Off a terminal nothing is imported for it: a piped run pays nothing.
    """
    line = terminal and args.format == "table"
    if not line and not args.verbose:
        return None
    from harness._cli.color import palette, use_color
    from harness._cli.progress import Progress

    verbose = None
    if args.verbose:  # beside --format json, the verdicts go to stderr: stdout is the document
        verbose = sys.stdout if args.format == "table" else sys.stderr
        if verbose is sys.stderr:
            paint = palette(use_color(args.color, sys.stderr))
    return Progress(total, stream=sys.stdout if line else None, verbose=verbose, paint=paint)


def _recordable(report: SuiteReport) -> bool:
    """Whether the history may record this run: a partial one would skew the trend."""
    from harness.text import complain

    if report.interrupted is not None:
        return False
    if report.stopped_early or report.selection is not None:
        why = "stopped at its first failure" if report.stopped_early else "a selection"
        complain(f"--history: this run is not recorded ({why}): it would skew the trend")
        return False
    return True

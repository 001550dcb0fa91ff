"""`harness run`: load -> select -> replay -> grade -> report -> exit status."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

import msgspec

from harness._cli import arguments, guard
from harness._cli.agent_arguments import add_agent_arguments, agent_settings
from harness._cli.arguments import AUTO_JOBS, check_outputs, jobs
from harness._cli.baselines import baselines, dumper, read_gate
from harness.config import MODES, find_pyproject, load_config
from harness.errors import UsageError
from harness.pipeline.interrupt import exit_status, stop_on_sigterm
from harness.pipeline.setup import setup_from
from harness.reports.outputs import show_json, show_table, to_stdout

if TYPE_CHECKING:
    from harness._cli.progress import Progress
    from harness.errors import FixtureError
    from harness.fixtures.format import Case
    from harness.fixtures.suite import Screen
    from harness.reports.model import SuiteReport
    from harness.reports.stream import ReportStream, Verdict

__all__ = ["LIVE_MODE_MESSAGE", "register"]

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
    """Replay the suite, report it, and return 0 (all passed) or 1."""
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    from harness._cli.last_failed import cache_path, remember
    from harness._cli.scope import apply_selection, suite_folder
    from harness.fixtures.shard import parse_shard
    from harness.fixtures.suite import load_suite
    from harness.pipeline.dispatch import run_suite

    if args.mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    config_path = args.config if args.config is not None else find_pyproject()
    config = load_config(config_path)
    mode = args.mode or config.mode
    if mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    shard = parse_shard(args.shard) if args.shard else None
    setup, tool_names = setup_from(
        config,
        config_path,
        capture=args.capture != "no",
        **agent_settings(args),
    )
    folder = suite_folder(args.suite, args.paths, config.suite_dir)
    check_outputs(args, config_path, (config.history, args.history), folder)
    baseline = read_gate(args.baseline, folder, mode)  # its suite and mode checked now
    load_jobs = args.jobs
    if load_jobs == AUTO_JOBS:  # loading in workers wins only with cores to spare
        from harness._parallel import cpu_count

        load_jobs = cpu_count() if cpu_count() > 2 else 1
    suite = load_suite(
        folder,
        tool_names,
        config.limits,
        load_jobs,
        screen=_unobservable(tool_spans=setup.tool_spans) if setup.agent_command else None,
    )
    cache = cache_path(config.history)
    suite = apply_selection(suite, args, cache)
    if shard is not None:
        suite = suite.sharded(shard)
    paint, terminal = None, False
    if args.format == "table" or args.verbose:  # a JSON run imports nothing for the terminal
        from harness._cli.color import is_terminal, palette, use_color

        paint = palette(use_color(args.color, sys.stdout))
        terminal = is_terminal(sys.stdout)
    progress = _progress(args, suite.count, paint, terminal=terminal)
    history = None if args.history is None else (args.history or config.history)
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    publishing = in_actions or bool(os.environ.get("GITHUB_STEP_SUMMARY"))
    guard.arm()  # from here until the reports are written, nothing may end the run with 0
    from harness.reports.stream import ReportStream

    stream = ReportStream(
        suite=suite.name,
        json_path=args.json,
        junit_path=args.junit,
        junit_flavor=args.junit_flavor,
        json=args.format == "json" or bool(args.html),
        history=history is not None,
        keep=True,  # what the table, the summary and the last-failed cache read: no record
        identity=baseline is not None or bool(args.write_baseline),
    )
    on_case = stream.add if progress is None else _both(stream.add, progress.on_case)
    if args.dump_records:
        on_case = _both(on_case, dumper(args.dump_records))
    try:
        with stop_on_sigterm():
            if progress is not None:
                progress.start()
            try:
                report = run_suite(
                    suite,
                    mode=mode,
                    setup=setup,
                    jobs=args.jobs,
                    on_case=on_case,
                    stop=_failed if args.exitfirst else None,
                    keep_cases=False,
                )
            finally:
                if progress is not None:
                    progress.finish()
        expected = suite.count
        del suite  # the decoded fixtures can go before the reports are finished
        recorded = history if history is not None and _recordable(report) else None
        status = _finish(stream, report, expected, recorded)
        guard.disarm()  # the reports are written: the status is the written report's
        shown = msgspec.structs.replace(report, cases=stream.kept())
        comparison = None
        if baseline is not None or args.write_baseline:
            complete = stream.total == expected and report.interrupted is None
            status, comparison = baselines(args, shown, baseline, status, complete=complete)
        remember(cache, shown)
        if args.html:  # drawn from the JSON report just finished
            from harness.reports.html import write_html

            write_html(args.html, b"".join(stream.json_pieces()), comparison=comparison)
        if args.format == "json":
            ok = to_stdout(show_json(stream.json_pieces()))
            if comparison is not None:  # stdout is the document: the comparison goes beside it
                print(comparison.render(), file=sys.stderr)
        elif comparison is not None:
            ok = to_stdout(show_table(shown, paint, comparison.marks(), comparison.render()))
        else:
            ok = to_stdout(show_table(shown, paint))
        if publishing:
            from harness.reports.github import publish

            artifacts = [path for path in (args.json, args.junit) if path]
            others = [p for p in (args.write_baseline, args.baseline, args.html, history) if p]
            if ok:
                to_stdout(lambda _: publish(shown, args.format, artifacts, others))
            else:  # stdout is gone: the job summary is still a file worth writing
                with contextlib.suppress(OSError, ValueError):
                    publish(shown, "json", artifacts, others)
    finally:
        stream.close()
    return status


def _both(first: Any, second: Any) -> Any:
    def both(case: Any) -> None:
        first(case)
        second(case)

    return both


def _finish(stream: ReportStream, report: SuiteReport, expected: int, history: str | None) -> int:
    """Write every report asked for, and the exit status the JSON report written implies."""
    from harness.reports.provenance import git_commit

    verdict = stream.finish(report, git_commit() or None)
    if history is not None:
        from harness.history.store import History

        assert stream.run_id is not None  # a history run always makes the JSON report
        with History(history) as store:
            store.record_streamed(stream.run_id, stream.document(), stream.rows())
    return _status(verdict, report, expected, stream.total)


def _status(verdict: Verdict, report: SuiteReport, expected: int, streamed: int) -> int:
    """0 only when the report written says all passed, and holds every case run for."""
    stopped = verdict.interrupted or report.interrupted
    if stopped is not None:
        return exit_status(stopped)
    if report.stopped_early:
        return 1  # stopped at a failed case: the rest did not run
    if verdict.all_passed and verdict.total == expected == streamed:
        return 0
    return 1


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


def _failed(case: Any) -> bool:
    return not case.passed


def _unobservable(*, tool_spans: bool) -> Screen:
    """What refuses, before anything runs, what an `agent_command` agent's wire cannot show
    (nothing when its tool spans show it)."""
    from harness.grading.evidence import load_refusals

    def screen(case: Case) -> list[FixtureError]:
        return load_refusals((case,), "agent_command", tool_spans=tool_spans)

    return screen


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

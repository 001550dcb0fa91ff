"""`harness trend`: a suite's pass rate, case grid, flips and flakes over recorded runs."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import msgspec

from harness._cli.arguments import positive_int
from harness.config import load_config
from harness.errors import HistoryError, UsageError
from harness.reports.artifact import HTML, check_output, write_atomic
from harness.reports.github import append_step_summary

__all__ = ["DEFAULT_LAST", "register"]

DEFAULT_LAST = 10
"""Runs shown when --last is not given."""


def register(commands: Any) -> None:
    """Add `trend` to the subcommands."""
    trend = commands.add_parser("trend", help="show a suite's pass-rate trend from the history")
    trend.add_argument("--suite", metavar="NAME", help="suite name (default: the latest run's)")
    trend.add_argument(
        "--last",
        metavar="N",
        type=positive_int,
        default=DEFAULT_LAST,
        help=f"runs to show (default: {DEFAULT_LAST})",
    )
    trend.add_argument(
        "--format",
        choices=("table", "json", "markdown"),
        default="table",
        help="what stdout shows (default: table)",
    )
    trend.add_argument(
        "--html", metavar="PATH", help="also write a self-contained HTML page (default: none)"
    )
    trend.add_argument("--history", metavar="PATH", help="history file (default: config history)")
    trend.add_argument(
        "--config", metavar="PATH", help="pyproject.toml to read (default: the nearest)"
    )
    trend.set_defaults(handler=trend_command)


def trend_command(args: argparse.Namespace) -> int:
    """Print the trend; write the page; mirror the Markdown to a GitHub job summary."""
    # Deferred: `harness --help` imports every command module; this command's machinery
    # would slow it.
    from harness.history.render import render_trend_html, render_trend_markdown, render_trend_table
    from harness.reports.html import pages_beside

    history = args.history or load_config(args.config).history
    if args.html:
        _check_html(args.html, history)
    trend = _load_trend(args, history)
    if args.format == "json":
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(trend), indent=2).decode())
        sys.stdout.write("\n")
    elif args.format == "markdown":
        sys.stdout.write(render_trend_markdown(trend))
    else:
        print(render_trend_table(trend))
    if args.html:
        write_atomic(args.html, render_trend_html(trend, pages_beside(args.html)).encode())
    append_step_summary(
        render_trend_markdown(trend), [path for path in (args.html, history) if path]
    )
    return 0


def _check_html(path: str, history: str) -> None:
    """Refuse, before the history is read, a page that would replace the history database
    or any file that is not an earlier page.

    Raises:
        UsageError: It would.
    """
    if os.path.realpath(path) == os.path.realpath(history):
        raise UsageError(f"--html {path}: it is the history database, which no output replaces")
    check_output("--html", path, kind=HTML)


def _load_trend(args: argparse.Namespace, path: str) -> Any:
    from harness.history.store import History  # deferred: as in `trend_command`
    from harness.history.trend_model import compute_trend

    if not os.path.exists(path):
        raise HistoryError(path, "no history yet: record runs with `harness run --history`")
    with History(path) as history:
        suites = history.suites()
        suite = args.suite or (suites[0] if suites else None)
        if suite is None:
            raise HistoryError(path, "no runs recorded yet")
        if suite not in suites:
            known = ", ".join(suites)
            raise UsageError(f"{path}: no recorded runs of suite {suite!r} (recorded: {known})")
        runs = history.runs(suite, args.last)
        results = history.case_results([run.run_id for run in runs])
        first = history.run_count(suite) - len(runs) + 1
    return compute_trend(suite, runs, results, first)

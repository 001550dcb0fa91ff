"""`harness run`: load -> replay -> grade -> report -> exit status."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from harness.artifact import write_atomic
from harness.config import MODES, load_config
from harness.errors import UsageError

if TYPE_CHECKING:
    from harness.report import SuiteReport

__all__ = ["LIVE_MODE_MESSAGE", "register"]

LIVE_MODE_MESSAGE = "live mode is not implemented yet (Phase 0 supports --mode replay only)"


def register(commands: Any) -> None:
    """Add `run` to the subcommands."""
    run = commands.add_parser("run", help="replay a suite and report pass/fail")
    run.add_argument("--suite", metavar="DIR", help="suite folder (default: config suite_dir)")
    run.add_argument("--mode", choices=MODES, help="replay (default) or live (not in Phase 0)")
    run.add_argument(
        "--format", choices=("table", "json"), default="table", help="what stdout shows"
    )
    run.add_argument("--json", metavar="PATH", help="also write the JSON report to PATH")
    run.add_argument("--junit", metavar="PATH", help="also write a JUnit XML report to PATH")
    run.add_argument(
        "--history",
        metavar="PATH",
        nargs="?",
        const="",
        help="record the run in the history (default path: config history)",
    )
    run.add_argument("--config", metavar="PATH", help="pyproject.toml to read (default: nearest)")
    run.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Replay the suite, report it, and return 0 (all passed) or 1."""
    from harness.runner import run_suite
    from harness.suite import load_suite

    if args.mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    config = load_config(args.config)
    mode = args.mode or config.mode
    if mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    suite = load_suite(args.suite or config.suite_dir)
    report = run_suite(suite, mode=mode)
    outputs = _Outputs(report)
    _show(outputs, args.format)
    _write_artifacts(outputs, json_path=args.json, junit_path=args.junit)
    if args.history is not None:
        _record(outputs, args.history or config.history)
    _publish_to_github(report, args.format)
    return report.exit_code()


class _Outputs:
    """The renderings of one report, each made at most once."""

    def __init__(self, report: SuiteReport) -> None:
        self.report = report
        self._json: bytes | None = None

    def json(self) -> bytes:
        if self._json is None:
            from harness.provenance import git_commit
            from harness.report import to_json

            self._json = to_json(self.report, git_commit=git_commit())
        return self._json

    def junit(self) -> bytes:
        from harness.junit import to_junit_xml
        from harness.provenance import git_commit

        return to_junit_xml(self.report, git_commit=git_commit())


def _show(outputs: _Outputs, output_format: str) -> None:
    if output_format == "json":
        sys.stdout.write(outputs.json().decode())
    else:
        from harness.table import render_table

        print(render_table(outputs.report))
    sys.stdout.flush()


def _write_artifacts(outputs: _Outputs, *, json_path: str | None, junit_path: str | None) -> None:
    if json_path:
        write_atomic(json_path, outputs.json())
    if junit_path:
        write_atomic(junit_path, outputs.junit())


def _record(outputs: _Outputs, path: str) -> None:
    from harness.history import History

    with History(path) as history:
        history.record_artifact(outputs.json())


def _publish_to_github(report: SuiteReport, output_format: str) -> None:
    """Append the job summary and emit annotations when running in GitHub Actions."""
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    if not in_actions and not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    from harness.github import annotation_commands, append_step_summary, step_summary

    append_step_summary(step_summary(report))
    if in_actions:
        # Keep stdout parseable when it carries the JSON report.
        stream = sys.stderr if output_format == "json" else sys.stdout
        for command in annotation_commands(report):
            print(command, file=stream)

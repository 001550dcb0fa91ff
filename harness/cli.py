"""The `harness` command: load -> run -> grade -> report -> exit status.

Exit status: 0 every case passed; 1 a case failed or errored; 2 the run could not start (bad
usage or config, a fixture rejected at load, live mode in Phase 0). A `HarnessError` becomes
one line per culprit on stderr; users never see a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from harness.artifact import write_atomic
from harness.config import MODES, load_config
from harness.errors import HarnessError, UsageError
from harness.version import __version__

if TYPE_CHECKING:
    from harness.report import SuiteReport

__all__ = ["LIVE_MODE_MESSAGE", "main"]

LIVE_MODE_MESSAGE = "live mode is not implemented yet (Phase 0 supports --mode replay only)"
EXIT_OK, EXIT_FAILED, EXIT_UNUSABLE, EXIT_INTERRUPTED = 0, 1, 2, 130


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and a `UsageError`, not an exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    """The `harness` command line."""
    parser = _Parser(prog="harness", description="Replay agent trace fixtures and grade them.")
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="replay a suite and report pass/fail")
    run.add_argument("--suite", metavar="DIR", help="suite folder (default: config suite_dir)")
    run.add_argument("--mode", choices=MODES, help="replay (default) or live (not in Phase 0)")
    run.add_argument(
        "--format", choices=("table", "json"), default="table", help="what stdout shows"
    )
    run.add_argument("--json", metavar="PATH", help="also write the JSON report to PATH")
    run.add_argument("--junit", metavar="PATH", help="also write a JUnit XML report to PATH")
    run.add_argument("--config", metavar="PATH", help="pyproject.toml to read (default: nearest)")
    run.set_defaults(handler=_run)
    schema = commands.add_parser("schema", help="print the JSON Schema of a harness format")
    schema.add_argument("kind", choices=("report", "fixture"), help="which format")
    schema.set_defaults(handler=_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `harness` command line and return its exit status."""
    try:
        args = build_parser().parse_args(argv)
        status: int = args.handler(args)
    except HarnessError as exc:
        _complain(str(exc))
        return EXIT_UNUSABLE
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else EXIT_UNUSABLE
    except KeyboardInterrupt:
        _complain("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`harness run | head`); say nothing more on a closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    return status


def _run(args: argparse.Namespace) -> int:
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
    _show(report, args.format)
    _write_artifacts(report, json_path=args.json, junit_path=args.junit)
    _publish_to_github(report, args.format)
    return report.exit_code()


def _show(report: SuiteReport, output_format: str) -> None:
    from harness.provenance import git_commit
    from harness.report import to_json
    from harness.table import render_table

    if output_format == "json":
        sys.stdout.write(to_json(report, git_commit=git_commit()).decode())
    else:
        print(render_table(report))
    sys.stdout.flush()


def _write_artifacts(report: SuiteReport, *, json_path: str | None, junit_path: str | None) -> None:
    from harness.provenance import git_commit

    if json_path:
        from harness.report import to_json

        write_atomic(json_path, to_json(report, git_commit=git_commit()))
    if junit_path:
        from harness.junit import to_junit_xml

        write_atomic(junit_path, to_junit_xml(report, git_commit=git_commit()))


def _publish_to_github(report: SuiteReport, output_format: str) -> None:
    """Append the job summary and emit annotations when running in GitHub Actions."""
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    if not summary_path and not in_actions:
        return
    from harness.github import annotation_commands, step_summary

    if summary_path:
        try:
            with open(summary_path, "a", encoding="utf-8") as file:
                file.write(step_summary(report))
        except OSError as exc:
            _complain(f"{summary_path}: cannot append the job summary: {exc.strerror or exc}")
    if in_actions:
        # Keep stdout parseable when it carries the JSON report.
        stream = sys.stderr if output_format == "json" else sys.stdout
        for command in annotation_commands(report):
            print(command, file=stream)


def _schema(args: argparse.Namespace) -> int:
    import msgspec

    from harness.case import LlmTrace
    from harness.report import ReportDocument

    target: type = ReportDocument if args.kind == "report" else LlmTrace
    schema = msgspec.json.encode(msgspec.json.schema(target))
    sys.stdout.write(msgspec.json.format(schema, indent=2).decode() + "\n")
    return EXIT_OK


def _complain(message: str) -> None:
    for line in message.splitlines() or [message]:
        print(f"harness: {line}", file=sys.stderr)

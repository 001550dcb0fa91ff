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
    run.add_argument("--config", metavar="PATH", help="pyproject.toml to read (default: nearest)")
    run.set_defaults(handler=_run)
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
    _emit(report, args)
    return report.exit_code()


def _emit(report: SuiteReport, args: argparse.Namespace) -> None:
    from harness.provenance import git_commit
    from harness.report import to_json
    from harness.table import render_table

    document = None
    if args.json or args.format == "json":
        document = to_json(report, git_commit=git_commit())
    if args.json:
        write_atomic(args.json, document or b"")
    if args.format == "json":
        sys.stdout.write((document or b"").decode())
    else:
        print(render_table(report))


def _complain(message: str) -> None:
    for line in message.splitlines() or [message]:
        print(f"harness: {line}", file=sys.stderr)

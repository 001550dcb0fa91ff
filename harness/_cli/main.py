"""The `harness` command: load -> run -> grade -> report -> exit status.

Exit status: 0 every case passed; 1 a case failed or errored; 2 the run could not start (bad
usage or config, a fixture rejected at load, live mode in Phase 0). A `HarnessError` becomes
one line per culprit on stderr; users never see a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from harness._cli import guard
from harness._cli.arguments import EXIT_STATUSES
from harness._cli.commands.run import LIVE_MODE_MESSAGE
from harness._cli.pipe import reader_gone
from harness.errors import HarnessError, UsageError
from harness.pipeline.interrupt import exit_status, signal_name
from harness.text import complain
from harness.version import DISTRIBUTION, __version__

__all__ = ["COMMANDS", "LIVE_MODE_MESSAGE", "build_parser", "main"]

EXIT_FAILED, EXIT_UNUSABLE = 1, 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and a `UsageError`, not an exit."""

    def error(self, message: str) -> NoReturn:
        # `complain` adds the `harness: ` prefix; a subcommand names itself after it.
        command = self.prog.removeprefix("harness").strip()
        place = f"{command}: " if command else ""
        raise UsageError(f"{place}{message} (see '{self.prog} --help')")


COMMANDS = ("init", "run", "record", "check", "merge", "report", "trend", "history", "schema")
"""The subcommands, each a module of `harness._cli.commands`, in the order `--help` lists them."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The `harness` command line: one subcommand per module of `harness._cli.commands`.

    With `only`, just that subcommand is registered: a run need not import and build the
    others (every argparse argument costs a formatter check).
    """
    parser = _Parser(
        prog="harness",
        description="Replay agent trace fixtures and grade them.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{DISTRIBUTION} {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )
    for name in COMMANDS:
        if only is None or name == only:
            importlib.import_module(f"harness._cli.commands.{name}").register(commands)
    for command in _subparsers(parser):
        command.epilog = command.epilog or EXIT_STATUSES
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """Every subcommand's parser, nested ones (`history import`) included."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found += [child, *_subparsers(child)]
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run the `harness` command line and return its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    try:
        args = build_parser(chosen).parse_args(argv)
        status: int = args.handler(args)
    except HarnessError as exc:
        complain(str(exc))
        return EXIT_UNUSABLE
    except SystemExit as exc:  # --help and --version; or code run by `harness run` exiting
        if guard.armed():  # a false green: the run's report was never written
            complain(guard.EARLY_EXIT.format(how=f"sys.exit({exc.code!r})"))
            return EXIT_FAILED
        return exc.code if isinstance(exc.code, int) else EXIT_UNUSABLE
    except KeyboardInterrupt as exc:
        name = signal_name(exc)
        complain(f"interrupted by {name}")
        return exit_status(name)
    except BrokenPipeError:
        # The reader went away before the command finished writing: a command that only
        # prints (trend, schema) has done what was asked; `run` and `check` keep their own
        # status, as they catch this themselves.
        return _reader_gone(0)
    finally:
        guard.disarm()  # whatever the status now is, it was decided here
    return _flushed(status)


def _flushed(status: int) -> int:
    """`status`, once stdout is flushed: a reader that went away ends the command quietly.

    Without this, the interpreter's own flush at exit meets the closed pipe
    (`harness trend | head -1`) and exits 1 with nothing said, or prints a traceback.
    """
    if sys.stdout is None:  # started with stdout closed
        return status
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _reader_gone(status)
    except (OSError, ValueError):  # a full or closed stdout: already said by the command
        return _reader_gone(status)
    return status


def _reader_gone(status: int) -> int:
    """`status`, with stdout silenced: its reader went away."""
    reader_gone()
    return status

"""`harness history import`: (re)build the run history from JSON artifacts."""

from __future__ import annotations

import argparse
from typing import Any

from harness.config import load_config
from harness.errors import HistoryError
from harness.reports.artifact import read_artifact

__all__ = ["register"]


def register(commands: Any) -> None:
    """Add `history` to the subcommands."""
    history = commands.add_parser("history", help="manage the run history")
    actions = history.add_subparsers(dest="action", required=True, metavar="ACTION")
    imports = actions.add_parser("import", help="record runs from JSON report artifacts")
    imports.add_argument("artifacts", nargs="+", metavar="ARTIFACT", help="harness JSON reports")
    imports.add_argument("--history", metavar="PATH", help="history file (default: config history)")
    imports.add_argument(
        "--config", metavar="PATH", help="pyproject.toml to read (default: the nearest)"
    )
    imports.set_defaults(handler=import_command)


def import_command(args: argparse.Namespace) -> int:
    """Import every artifact, or none when one cannot be read: an import never half-happens."""
    # Deferred: `harness --help` imports every command module; the history store would
    # slow it.
    from harness.history.store import History

    artifacts = [(path, read_artifact(path, HistoryError)) for path in args.artifacts]
    path = args.history or load_config(args.config).history
    added = 0
    with History(path) as history:
        for source, data in artifacts:
            history.check_artifact(data, source)
        for source, data in artifacts:
            added += history.record_artifact(data, source)
    skipped = len(artifacts) - added
    print(f"{path}: imported {added} run(s), {skipped} already recorded")
    return 0

"""`harness schema`: the JSON Schema of the report or fixture format."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

__all__ = ["register"]


def register(commands: Any) -> None:
    """Add `schema` to the subcommands."""
    schema = commands.add_parser("schema", help="print the JSON Schema of a harness format")
    schema.add_argument("kind", choices=("report", "fixture"), help="which format")
    schema.set_defaults(handler=schema_command)


def schema_command(args: argparse.Namespace) -> int:
    """Print the schema, generated from the msgspec types the harness itself uses."""
    from harness.case import LlmTrace
    from harness.report import ReportDocument

    target: type = ReportDocument if args.kind == "report" else LlmTrace
    schema = msgspec.json.encode(msgspec.json.schema(target))
    sys.stdout.write(msgspec.json.format(schema, indent=2).decode() + "\n")
    return 0

"""`harness schema`: the JSON Schema of the report or fixture format."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from harness.fixtures.format import LlmTrace
from harness.fixtures.json_schema import DIALECT, schema_text
from harness.reports.document import ReportDocument

__all__ = ["DIALECT", "register", "schema_text"]


def register(commands: Any) -> None:
    """Add `schema` to the subcommands."""
    schema = commands.add_parser("schema", help="print the JSON Schema of a harness format")
    schema.add_argument("kind", choices=("report", "fixture"), help="which format")
    schema.set_defaults(handler=schema_command)


def schema_command(args: argparse.Namespace) -> int:
    """Print the schema, generated from the msgspec types the harness itself uses."""
    sys.stdout.write(schema_text(ReportDocument if args.kind == "report" else LlmTrace))
    return 0

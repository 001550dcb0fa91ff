"""`harness report`: the HTML page of JSON reports already written (a CI artifact, an old run)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from harness.errors import UsageError

__all__ = ["register"]


def register(commands: Any) -> None:
    """Add `report` to the subcommands."""
    report = commands.add_parser(
        "report",
        help="draw the HTML page of JSON reports already written",
        description="Draw one self-contained HTML page from a JSON report, or from the shard\n"
        "reports of one run (merged as `harness merge` merges them).",
    )
    report.add_argument(
        "parts", nargs="+", metavar="JSON", help="a JSON report, or each shard's JSON report"
    )
    report.add_argument(
        "--html", metavar="PATH", required=True, help="write the HTML page to PATH (required)"
    )
    report.add_argument(
        "--baseline",
        metavar="PATH",
        help="mark the cases that flipped against this baseline (default: none)",
    )
    report.set_defaults(handler=report_command)


def report_command(args: argparse.Namespace) -> int:
    """Write the page; 0 once it is written, whatever the verdict it shows."""
    import hashlib

    from harness.errors import MergeError
    from harness.reports.artifact import HTML, check_output, read_artifact, write_atomic
    from harness.reports.document import decode_document, from_document
    from harness.reports.html import render_html
    from harness.reports.shards import merge_reports, read_part
    from harness.reports.writers import to_json

    for path in args.parts:
        if os.path.realpath(path) == os.path.realpath(args.html):
            raise UsageError(f"--html {args.html}: the same file as the report {path}")
    check_output("--html", args.html, kind=HTML)  # nor any file but an earlier page
    if len(args.parts) == 1:
        report_json = read_artifact(args.parts[0], MergeError)
        document = decode_document(report_json, args.parts[0], MergeError)
    else:
        parts = [(path, read_part(path)) for path in args.parts]
        report_json = to_json(merge_reports(parts), git_commit=parts[0][1].git_commit)
        document = decode_document(report_json, args.parts[0], MergeError)
    comparison = None
    if args.baseline:
        from harness.reports.baseline import compare, read_baseline

        comparison = compare(read_baseline(args.baseline), from_document(document))
    run_id = hashlib.sha256(report_json).hexdigest()
    page = render_html(document, run_id=run_id, comparison=comparison)
    write_atomic(args.html, page.encode())
    return 0

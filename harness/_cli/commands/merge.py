"""`harness merge`: one report from the JSON reports of a sharded run.

In GitHub Actions the merged report also writes the job summary and the annotations, as
`harness run` does: a sharded workflow gets them from its merge job.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]


def register(commands: Any) -> None:
    """Add `merge` to the subcommands."""
    merge = commands.add_parser("merge", help="combine shard reports (--shard) into one report")
    merge.add_argument("parts", nargs="+", metavar="PART.json", help="each shard's JSON report")
    merge.add_argument(
        "--json", metavar="PATH", help="write the merged JSON report (default: none)"
    )
    merge.add_argument("--junit", metavar="PATH", help="write the merged JUnit XML (default: none)")
    merge.add_argument(
        "--html", metavar="PATH", help="write the merged HTML report (default: none)"
    )
    merge.add_argument(
        "--junit-flavor",
        choices=("full", "strict"),
        default="full",
        help="full: testcase file/line for CI reporters; strict: junit-10 (default: full)",
    )
    merge.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="what stdout shows (default: table)",
    )
    merge.set_defaults(handler=merge_command)


def merge_command(args: argparse.Namespace) -> int:
    """Merge, report like `harness run`, and exit with the merged result's status.

    A merge of an interrupted shard exits as that shard did (130 for SIGINT, 143 for SIGTERM).
    """
    from harness.pipeline.interrupt import exit_status
    from harness.reports.github import publish
    from harness.reports.outputs import Outputs, show, write_artifacts
    from harness.reports.shards import merge_reports, read_part

    check_merge_outputs(args)
    parts = [(path, read_part(path)) for path in args.parts]
    report = merge_reports(parts)
    commit = parts[0][1].git_commit
    outputs = Outputs(report, git_commit=commit)
    show(outputs, args.format)
    write_artifacts(
        outputs, json_path=args.json, junit_path=args.junit, junit_flavor=args.junit_flavor
    )
    if args.html:
        from harness.reports.html import write_html

        write_html(args.html, outputs.json())
    artifacts = [path for path in (args.json, args.junit) if path]
    publish(report, args.format, artifacts, [*args.parts, *([args.html] if args.html else [])])
    if report.interrupted is not None:
        return exit_status(report.interrupted)
    return report.exit_code()


def check_merge_outputs(args: argparse.Namespace) -> None:
    """Refuse, before anything is read, an output that would replace a part being merged,
    the other output, or any file that is not an earlier report of its kind.

    Raises:
        UsageError: It would.
    """
    import os

    from harness.errors import UsageError
    from harness.reports.artifact import HTML, JSON_REPORT, JUNIT, check_output

    taken = {os.path.realpath(part): f"the part {part}" for part in args.parts}
    for flag, path, kind in (
        ("--json", args.json, JSON_REPORT),
        ("--junit", args.junit, JUNIT),
        ("--html", args.html, HTML),
    ):
        if path is None:
            continue
        check_output(flag, path, kind=kind)
        real = os.path.realpath(path)
        if real in taken:
            raise UsageError(f"{flag} {path}: the same file as {taken[real]}")
        taken[real] = flag

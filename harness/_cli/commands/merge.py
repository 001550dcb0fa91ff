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
    """Merge, write and show like `harness run`, and exit with the merged run's status
    (`decide`): a merge of an interrupted shard exits as that shard did (130 for SIGINT, 143
    for SIGTERM).

    The merged cases are fed to the same writers a run feeds as its cases finish, so the
    merged JSON and JUnit are the unsharded run's.
    """
    import msgspec

    from harness._cli.commands.run import show
    from harness.pipeline.interrupt import stops_held
    from harness.pipeline.workflow import RunOptions, RunWriters, decide, write
    from harness.reports.github import in_github
    from harness.reports.shards import merge_reports, read_part
    from harness.reports.writers import feed

    check_merge_outputs(args)
    parts = [(path, read_part(path)) for path in args.parts]
    report = merge_reports(parts)
    options = RunOptions(
        mode=report.mode,
        output_format=args.format,
        json=args.json,
        junit=args.junit,
        junit_flavor=args.junit_flavor,
        html=args.html,
        publish=in_github(),
    )
    writers = RunWriters(options)
    try:
        feed((writers,), report.cases)
        head = msgspec.structs.replace(report, cases=())
        del report
        with stops_held() as stopped:  # a stop waits until every report is whole
            written = write(
                writers, head, expected=writers.counts.total, git_commit=parts[0][1].git_commit
            )
        show(
            options,
            writers,
            written,
            None,
            others=[*args.parts, *([args.html] if args.html else [])],
        )
    finally:
        writers.discard()
    return decide(written.ran.stopped_by(stopped), written.comparison)


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

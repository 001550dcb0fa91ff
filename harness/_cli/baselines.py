"""`harness run --baseline/--write-baseline/--dump-records`: what a run adds beside its reports."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["baselines", "dumper"]


def dumper(directory: str) -> Any:
    """Write each failed or errored case's record to `directory` as the case finishes."""
    from harness.reports.model import SuiteReport
    from harness.reports.receipts import dump_records

    def dump(case: Any) -> None:
        if not case.passed and case.skipped is None:
            dump_records(SuiteReport(suite="", directory="", mode="", cases=(case,)), directory)

    return dump


def baselines(args: argparse.Namespace, report: Any, baseline: Any, status: int) -> int:
    """Write and compare baselines; the comparison, when there is one, is the exit status.

    The JUnit file written marks the flips.
    """
    if args.write_baseline:
        from harness.reports.baseline import write_baseline

        refused = write_baseline(report, args.write_baseline)
        if refused:
            print(f"harness: {refused}", file=sys.stderr)
    if baseline is None:
        return status
    from harness.reports.baseline import compare, write_marked_junit

    comparison = compare(baseline, report)
    if args.junit:
        with open(args.junit, "rb") as file:
            junit = file.read()
        write_marked_junit(args.junit, junit, baseline, report)
    print(comparison.render(), file=sys.stderr if args.format == "json" else sys.stdout)
    return comparison.exit_code()

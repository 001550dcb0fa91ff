"""The human-readable report: one row per case, each failure under its case."""

from __future__ import annotations

from tabulate import tabulate

from harness.reports.model import CaseReport, SuiteReport
from harness.text import printable

__all__ = ["render_table"]

PASS, FAIL = "✓", "✗"
_INDENT = "      "


def render_table(report: SuiteReport) -> str:
    """The report as a table, each failing check with its detail under its case."""
    rows = [[*_row(case)] for case in report.cases]
    lines = tabulate(
        rows, headers=["", "case", "source", "checks"], tablefmt="simple", disable_numparse=True
    ).splitlines()
    out = lines[:2]
    for case, line in zip(report.cases, lines[2:], strict=True):
        out.append(line)
        out.extend(_details(case))
    summary = f"{report.passed}/{report.total} cases passed ({report.failed} failed)"
    if report.shard is not None:
        summary += f" in shard {report.shard} of a {report.suite_total}-case suite"
    if report.interrupted is not None:
        summary += f"; INTERRUPTED by {report.interrupted}: the other cases did not run"
    out.append(summary)
    return "\n".join(out)


def _row(case: CaseReport) -> tuple[str, str, str, str]:
    mark = PASS if case.passed else FAIL
    if case.error is not None:
        checks = "error"
    else:
        checks = f"{len(case.grades) - len(case.failed_grades)}/{len(case.grades)} checks"
    return mark, printable(case.name), printable(case.source), checks


def _details(case: CaseReport) -> list[str]:
    if case.error is not None:
        return [f"{_INDENT}error: {printable(case.error)}"]
    return [
        f"{_INDENT}{FAIL} {printable(grade.check)}: {printable(grade.detail)}"
        for grade in case.failed_grades
    ]

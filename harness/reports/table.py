"""The human-readable report: one row per case, each failure under its case, then the recap.

The rows are laid out by `columns.lay_out` (tabulate's `simple` format), as every table
harness prints is; the lines under a case and the color of its mark are added afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from harness.grading.result import GradeResult
from harness.reports.columns import lay_out
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.recap import Paint, error_summary, render_recap
from harness.text import printable

__all__ = ["ERROR_LIMIT", "FAIL", "PASS", "render_table", "table_lines", "table_rows"]

ERROR_LIMIT = 600
"""Characters of an error shown under its case, the exception line aside: one line, never
the whole stderr (the JSON and JUnit reports keep it)."""

PASS, FAIL, SKIP = "✓", "✗", "-"
_INDENT = "      "
_HEADERS = ("", "case", "source", "checks")


def render_table(
    report: SuiteReport, paint: Paint | None = None, marks: Sequence[str] | None = None
) -> str:
    """The report as a table, each failing check with its detail under its case, and a recap.

    Args:
        report: The run.
        paint: Colors a text by style (`pass`, `fail`, `error`, `bold`); None for plain text.
        marks: A `baseline` column: each case's cell, in case order (None: no such column).
    """
    return "\n".join(table_lines(report, paint, marks))


def table_lines(
    report: SuiteReport, paint: Paint | None = None, marks: Sequence[str] | None = None
) -> Iterator[str]:
    """`render_table`'s lines, one at a time: the rows are laid out together, each case's
    lines under it and the colors added as its row is given out."""
    cases = report.cases
    verdicts = [_verdict(case) for case in cases]  # grades walked once
    rows: list[tuple[str, ...]] = [
        _row(case, failed) for case, failed in zip(cases, verdicts, strict=True)
    ]
    headers: tuple[str, ...] = _HEADERS
    if marks is not None:
        headers = (*_HEADERS, "baseline")
        rows = [(*row, mark) for row, mark in zip(rows, marks, strict=True)]
    head, rule, *lines = lay_out(headers, rows)
    del rows  # the cells are in the lines now
    yield head
    yield rule
    mark_width = rule.index(" ")  # the first column's rule: as wide as the marks' column
    for case, failed, line in zip(cases, verdicts, lines, strict=True):
        if paint is not None:
            style = "pass" if failed is None else "error" if case.error is not None else "fail"
            line = paint(style, line[:mark_width]) + line[mark_width:]
        yield line
        if failed is not None:
            yield from _details(case, failed)
        yield from _unknown_tools(case)
    yield render_recap(report, paint)


def table_rows(report: SuiteReport) -> list[tuple[str, str, str, str]]:
    """The table's cells, one tuple per case, before layout."""
    return [_row(case, _verdict(case)) for case in report.cases]


def _verdict(case: CaseReport) -> tuple[GradeResult, ...] | None:
    """None when `case` passed, else its failed grades (none for an error or no check)."""
    if case.error is None and case.grades:
        failed = tuple(grade for grade in case.grades if not grade.passed)
        return failed or None
    return ()


def _row(case: CaseReport, failed: tuple[GradeResult, ...] | None) -> tuple[str, str, str, str]:
    if case.skipped is not None:
        return SKIP, printable(case.name).strip(), printable(case.source).strip(), "skipped"
    mark = PASS if failed is None else FAIL
    total = len(case.grades)
    checks = "error" if case.error is not None else f"{total - len(failed or ())}/{total} checks"
    return mark, printable(case.name).strip(), printable(case.source).strip(), checks


_UNKNOWN = "Unknown tool: "
"""How the tool registry answers a call to a tool it does not hold."""


def _unknown_tools(case: CaseReport) -> list[str]:
    """A line per call to a tool the registry does not hold, even in a passing case."""
    return [
        f"{_INDENT}! call {index}: {printable(call.result)} (not a registered tool)"
        for index, call in enumerate(case.record.tool_calls)
        if not call.success and call.result == _UNKNOWN + call.name
    ]


def _details(case: CaseReport, failed: tuple[GradeResult, ...]) -> list[str]:
    """The lines under a case's row (no trailing space, even for an empty detail)."""
    if case.skipped is not None:
        lines = [f"skipped: {printable(case.skipped)}"]
    elif case.error is not None:
        lines = [f"error: {printable(error_summary(case.error, ERROR_LIMIT))}"]
    else:
        lines = [f"{FAIL} {printable(grade.check)}: {printable(grade.detail)}" for grade in failed]
    return [(_INDENT + line).rstrip() for line in lines]

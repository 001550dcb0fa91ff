"""The human-readable report: one row per case, each failure under its case, then the recap.

The per-case table is laid out here, not by tabulate: on a 10k-case run tabulate took ~30
times as long as padding the columns directly (it re-measures and re-aligns every cell for
formats and number alignment this table never uses). The layout is tabulate's `simple`
format, byte for byte: columns at least their header's width + 2, two spaces between them,
cells stripped, no trailing spaces.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from harness.grading.result import GradeResult
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.recap import Paint, error_summary, render_recap
from harness.text import printable

__all__ = ["ERROR_LIMIT", "FAIL", "PASS", "ROWS_HELD", "render_table", "table_lines", "table_rows"]

ERROR_LIMIT = 600
"""Characters of an error shown under its case, the exception line aside: one line, never
the whole stderr (the JSON and JUnit reports keep it)."""

PASS, FAIL, SKIP = "✓", "✗", "-"
_INDENT = "      "
_HEADERS = ("", "case", "source", "checks")
Row = tuple[str, ...]


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


ROWS_HELD = 16_384
"""Cases up to which the table holds its rows while it is laid out; past it each row is made
twice (for the column widths, then for its line), so a large run's table holds none."""


def table_lines(
    report: SuiteReport, paint: Paint | None = None, marks: Sequence[str] | None = None
) -> Iterator[str]:
    """`render_table`'s lines, made one at a time (a large run's table is never held whole)."""
    cases = report.cases
    held = len(cases) <= ROWS_HELD
    headers = _HEADERS if marks is None else (*_HEADERS, "baseline")

    def cells(index: int, case: CaseReport, failed: tuple[GradeResult, ...] | None) -> Row:
        row = _row(case, failed)
        return row if marks is None else (*row, marks[index])

    verdicts = [_verdict(case) for case in cases] if held else []  # grades walked once
    rows = [cells(i, case, verdicts[i]) for i, case in enumerate(cases)] if held else []
    widths = [len(header) + 2 for header in headers]
    every = rows if held else (cells(i, case, _verdict(case)) for i, case in enumerate(cases))
    for row in every:
        for column, cell in enumerate(row):
            widths[column] = max(widths[column], len(cell))
    template = "  ".join(f"{{:<{width}}}" for width in widths)
    yield template.format(*headers).rstrip()
    yield "  ".join("-" * width for width in widths)
    mark_width = widths[0]
    for index, case in enumerate(cases):
        failed = verdicts[index] if held else _verdict(case)
        row = rows[index] if held else cells(index, case, failed)
        line = template.format(*row).rstrip()
        if paint is not None:
            style = "pass" if failed is None else "error" if case.error is not None else "fail"
            line = paint(style, line[:mark_width]) + line[mark_width:]
        yield line
        if failed is not None:
            yield from _details(case, failed)
        yield from _unknown_tools(case)
    yield render_recap(report, paint)


def table_rows(report: SuiteReport) -> list[tuple[str, str, str, str]]:
    """The table's cells, one tuple per case (what the benchmark feeds tabulate)."""
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
    if case.skipped is not None:
        return [f"{_INDENT}skipped: {printable(case.skipped)}"]
    if case.error is not None:
        return [f"{_INDENT}error: {printable(error_summary(case.error, ERROR_LIMIT))}"]
    return [
        f"{_INDENT}{FAIL} {printable(grade.check)}: {printable(grade.detail)}" for grade in failed
    ]

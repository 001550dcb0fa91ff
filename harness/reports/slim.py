"""What a writer holds of a finished case until the run ends: only what it prints.

A run's cases are not kept whole (a large suite's would not fit), so the writers that can only
write at the end (JUnit, the table, the GitHub summary) each hold a slimmed case: a passing
check's label and category without what it observed, and the record without what no such
writer reads. The strings are the finished case's own, shared, never copied.
"""

from __future__ import annotations

import functools

import msgspec

from harness.grading.result import Category, GradeResult
from harness.recording import RunRecord
from harness.reports.model import CaseReport

__all__ = ["for_junit", "printed"]

_NO_RECORD = RunRecord()


def printed(case: CaseReport) -> CaseReport:
    """What the table, the summary, the baseline and the last-failed cache read of `case`:
    no passing check's detail, and no record unless a call failed (the table names calls to a
    tool the registry lacks)."""
    record = _NO_RECORD
    if not all(call.success for call in case.record.tool_calls):
        record = RunRecord(tool_calls=case.record.tool_calls)
    return CaseReport(
        name=case.name,
        source=case.source,
        grades=slim_grades(case.grades),
        error=case.error,
        record=record,
        skipped=case.skipped,
        case_id=case.case_id,
        case_hash=case.case_hash,
    )


def for_junit(case: CaseReport) -> CaseReport:
    """What the JUnit file reads of `case`: all but the request bodies, the traceback and the
    passing checks' details."""
    record = case.record
    return msgspec.structs.replace(
        case,
        grades=slim_grades(case.grades),
        traceback=None,
        record=RunRecord(
            final_response=record.final_response,
            tool_calls=record.tool_calls,
            input_tokens=record.input_tokens,
            output_tokens=record.output_tokens,
        ),
    )


def slim_grades(grades: tuple[GradeResult, ...]) -> tuple[GradeResult, ...]:
    """`grades` with each passing check's detail left out.

    Its label stays: an expectation's line in the fixture is found by counting the checks of
    its kind before it.
    """
    return tuple(
        grade if not grade.passed else _passed(grade.check, grade.category) for grade in grades
    )


@functools.lru_cache(maxsize=4096)
def _passed(check: str, category: Category) -> GradeResult:
    """A passing check without its detail, shared by the cases that make the same check."""
    return GradeResult(check=check, passed=True, detail="", category=category)

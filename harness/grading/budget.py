"""Grading what a run spent against `expects.budget`.

A replayed run spends exactly the tokens and model calls its steps script: the one it could
spend otherwise errors (a step left unasked, or one asked for past the script). So the token
and call bounds are settled when the fixture loads, against the script (one the script
exceeds is refused there), and a run grades none of them: a check that cannot fail is no
evidence. `max_duration_ms` is the one bound a run can break, and the one wall-clock check:
on a loaded machine it can flake. Every bound is inclusive.
"""

from __future__ import annotations

from collections.abc import Iterator

from harness.fixtures.format import BudgetExpects, Case
from harness.grading.result import GradeContext, GradeResult
from harness.recording import RunRecord

__all__ = ["BudgetGrader", "grade_budget"]


class BudgetGrader:
    """The built-in grader of `expects.budget`."""

    def grade(
        self, case: Case, record: RunRecord, context: GradeContext
    ) -> tuple[GradeResult, ...]:
        """One result per declared bound; none when the case declares no budget."""
        budget = case.expects.budget
        if budget is None:
            return ()
        return tuple(grade_budget(budget, record, context))


def grade_budget(
    budget: BudgetExpects, record: RunRecord, context: GradeContext
) -> Iterator[GradeResult]:
    """The duration bound, if declared: the others were settled at load."""
    if budget.max_duration_ms is not None:
        bound = budget.max_duration_ms
        took = context.duration_s * 1000
        yield _result(f"max_duration_ms({bound})", took <= bound, f"took {took:.1f} ms")


def _result(check: str, passed: bool, detail: str) -> GradeResult:
    return GradeResult(check=check, passed=passed, detail=detail, category="budget")

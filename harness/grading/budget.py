"""Grading what a run spent against `expects.budget`: tokens, model calls, time.

Every bound is inclusive. The token and call counts are what the agent consumed of the script;
`max_duration_ms` is the one wall-clock check, and on a loaded machine it can flake.
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
    """Each declared bound, in the order of the fields."""
    total = record.input_tokens + record.output_tokens
    spent = (
        ("max_input_tokens", budget.max_input_tokens, record.input_tokens, "input token(s)"),
        ("max_output_tokens", budget.max_output_tokens, record.output_tokens, "output token(s)"),
        ("max_total_tokens", budget.max_total_tokens, total, "token(s) in all"),
        ("max_llm_calls", budget.max_llm_calls, record.llm_calls, "model call(s)"),
    )
    for name, bound, used, unit in spent:
        if bound is not None:
            yield _result(f"{name}({bound})", used <= bound, f"{used} {unit}")
    if budget.max_duration_ms is not None:
        bound = budget.max_duration_ms
        took = context.duration_s * 1000
        yield _result(f"max_duration_ms({bound})", took <= bound, f"took {took:.1f} ms")


def _result(check: str, passed: bool, detail: str) -> GradeResult:
    return GradeResult(check=check, passed=passed, detail=detail, category="budget")

"""The graders a case goes through: the built-in ones, then the project's own.

The built-in graders (the expectations, the response's JSON, the workspace, the budget, the
request checks) are registered exactly as a
project's graders are, and every one goes through the `Grader` protocol. A project grader
that raises or returns something that is not grades errors its case with a message that
names it; it never crashes the suite.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.errors import CaseTimeout, ExtensionError
from harness.grading.budget import BudgetGrader
from harness.grading.expectations import ExpectationsGrader
from harness.grading.requests import RequestsGrader
from harness.grading.response_json import ResponseJsonGrader
from harness.grading.result import CATEGORIES, GradeContext, Grader, GradeResult
from harness.grading.side_effects import WorkspaceGrader
from harness.text import truncate

if TYPE_CHECKING:
    from harness.fixtures.format import Case
    from harness.recording import RunRecord

__all__ = ["BUILT_IN", "grade_case"]

BUILT_IN: tuple[Grader, ...] = (
    ExpectationsGrader(),
    ResponseJsonGrader(),
    WorkspaceGrader(),
    BudgetGrader(),
    RequestsGrader(),
)
"""The graders every case goes through, in order: the 11 expectations, JSON fields of the
response, the workspace, the budget, then request checks."""


def grade_case(
    case: Case,
    record: RunRecord,
    context: GradeContext,
    extra: Sequence[Grader] = (),
) -> tuple[GradeResult, ...]:
    """Every check of `case`: the built-in graders' results, then each of `extra`'s.

    Raises:
        ExtensionError: A grader of `extra` raised or returned something that is not grades,
            or no grader returned any grade.
    """
    grades: list[GradeResult] = []
    for grader in BUILT_IN:
        grades.extend(grader.grade(case, record, context))
    for grader in extra:
        name = type(grader).__name__
        try:
            results = tuple(grader.grade(case, record, context))
        except CaseTimeout:
            raise
        except (Exception, SystemExit) as exc:
            raise ExtensionError(f"grader {name} failed: {type(exc).__name__}: {exc}") from exc
        wrong = next((result for result in results if not _well_formed(result)), None)
        if wrong is not None:
            raise ExtensionError(
                f"grader {name} returned something that is not a GradeResult "
                f"(check: str, passed: bool, detail: str, category: one of "
                f"{', '.join(CATEGORIES)}): {_shown(wrong)}"
            )
        grades.extend(results)
    if not grades:  # every case declares a check, so no grade at all means none was made
        raise ExtensionError(
            "no grader returned a check for this case: an empty grade list is never a pass"
        )
    return tuple(grades)


def _well_formed(result: object) -> bool:
    """Whether `result` is a `GradeResult` whose fields hold what their types say (a Struct
    is not checked when it is made, so `passed="no"` would otherwise reach the reports)."""
    return (
        isinstance(result, GradeResult)
        and type(result.passed) is bool
        and type(result.check) is str
        and type(result.detail) is str
        and result.category in CATEGORIES
    )


def _shown(value: object) -> str:
    """`value` as an error may quote it: its repr, cut short."""
    try:
        text = repr(value)
    except Exception as exc:  # a repr that raises is the grader's bug, not ours
        text = f"<{type(value).__name__}: repr failed with {type(exc).__name__}>"
    return truncate(text, 200)

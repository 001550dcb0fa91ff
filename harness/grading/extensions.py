"""TODO docstring."""

from __future__ import annotations

from collections.abc import Sequence

from harness.errors import ExtensionError
from harness.grading.result import Grader, GradeResult
from harness.recording import RunRecord, _name

__all__ = ["grade_with"]


def grade_with(graders: Sequence[Grader], record: RunRecord) -> tuple[GradeResult, ...]:
    """Every extension grader's results, in order.

    Raises:
        ExtensionError: A grader raised or returned something that is not grades.
    """
    grades: list[GradeResult] = []
    for grader in graders:
        try:
            results = tuple(grader.grade(record))
        except Exception as exc:
            raise ExtensionError(
                f"grader {_name(grader)} failed: {type(exc).__name__}: {exc}"
            ) from exc
        if not all(isinstance(result, GradeResult) for result in results):
            raise ExtensionError(
                f"grader {_name(grader)} returned something that is not GradeResults"
            )
        grades.extend(results)
    return tuple(grades)

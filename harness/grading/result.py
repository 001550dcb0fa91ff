"""TODO docstring."""

from __future__ import annotations

from typing import Protocol

import msgspec

from harness.recording import RunRecord

__all__ = ["GradeResult", "Grader"]


class GradeResult(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The verdict of one check."""

    check: str
    """The check's label, e.g. `response_contains("hello")`."""
    passed: bool
    """Whether it passed."""
    detail: str
    """What was observed."""


class Grader(Protocol):
    """Scores a finished run."""

    def grade(self, record: RunRecord) -> tuple[GradeResult, ...]:
        """Grade `record`; never raises."""
        ...

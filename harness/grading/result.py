"""What grading produces and the one-method protocol every grader implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol

import msgspec

if TYPE_CHECKING:
    from harness.fixtures.format import Case
    from harness.recording import RunRecord

__all__ = ["CATEGORIES", "Category", "GradeContext", "GradeResult", "Grader"]

Category = Literal["response", "tool", "side_effect", "budget", "request", "config"]
"""What a check looks at: the final response, the tool calls, the workspace the run left,
what it spent, what it sent to the endpoint, or how the agent was configured."""
CATEGORIES: tuple[Category, ...] = (
    "response",
    "tool",
    "side_effect",
    "budget",
    "request",
    "config",
)
"""Every category, in report order."""


class GradeResult(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The verdict of one check."""

    check: str
    """The check's label, e.g. `response_contains("hello")`."""
    passed: bool
    """Whether it passed."""
    detail: str
    """What was observed."""
    category: Category = "response"
    """What the check looks at; a project's grader should say (the default is `response`)."""


class GradeContext(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What a grader may know of the run beside its record."""

    workspace: str | None = None
    """The case's workspace folder, if the agent used one (removed once grading ends)."""
    duration_s: float = 0.0
    """Seconds the case took to play, up to grading."""


class Grader(Protocol):
    """Grades a finished case; built-in expectations and a project's own graders alike."""

    def grade(self, case: Case, record: RunRecord, context: GradeContext) -> Sequence[GradeResult]:
        """The checks this grader makes of `record`, the run of `case`."""
        ...

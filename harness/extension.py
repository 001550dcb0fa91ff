"""The project's own observers and graders, run beside the built-in ones.

An extension that fails errors its case, with a message that names it; it never crashes the
suite and never changes another case. The built-in recorder is notified first, so a failing
observer cannot cost the record an event.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.grader import Grader, GradeResult
from harness.observer import Event, Observer
from harness.record import RunRecord

__all__ = ["ExtensionError", "FanOut", "grade_with"]


class ExtensionError(Exception):
    """An observer or grader extension failed; the message names it and its error."""


def _name(extension: object) -> str:
    return type(extension).__name__


class FanOut:
    """Notifies the recorder, then each extension; remembers the first extension failure."""

    def __init__(self, recorder: Observer, extensions: Sequence[Observer]) -> None:
        self._recorder = recorder
        self._extensions = extensions
        self.failure: str | None = None

    def notify(self, event: Event) -> None:
        """Pass `event` on; an extension that raises is noted, not propagated."""
        self._recorder.notify(event)
        for extension in self._extensions:
            try:
                extension.notify(event)
            except Exception as exc:
                if self.failure is None:
                    self.failure = (
                        f"observer {_name(extension)} failed: {type(exc).__name__}: {exc}"
                    )


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

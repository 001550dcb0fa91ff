"""Suite results and the exit status they imply (their JSON document is in `document.py`).

The field names `all_passed`, `passed`, `failed`, `total`, `cases`, and per case `name`,
`source`, `passed`, `error`, `grades` (`check`, `passed`, `detail`) are fixed: other tools
read them. Everything else in the document is additive.
"""

from __future__ import annotations

import functools

import msgspec

from harness.fixtures.shard import Shard
from harness.grading.result import GradeResult
from harness.recording import RunRecord

__all__ = ["CaseReport", "SuiteReport", "passes"]


def passes(
    *, failed: int, total: int, shard: Shard | None, interrupted: str | None, skipped: int = 0
) -> bool:
    """Whether a run with these counts passed: nothing failed, it was not stopped, and it ran
    a case, except a shard that the split left empty; a run whose every case was skipped
    proved nothing and does not pass.

    The one rule, for a report held whole and for cases counted as they finished.
    """
    if interrupted is not None:
        return False
    if total and skipped == total:
        return False
    return failed == 0 and (total > 0 or shard is not None)


class CaseReport(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One case's outcome."""

    name: str
    """The case name."""
    source: str
    """The fixture path."""
    grades: tuple[GradeResult, ...] = ()
    """One result per declared expectation (none when the run errored)."""
    error: str | None = None
    """Why the run went wrong, or None."""
    traceback: str | None = None
    """The full traceback of an unexpected exception (JSON report only)."""
    record: RunRecord = RunRecord()
    """What the run did, up to where it stopped."""
    duration: float = 0.0
    """Wall time of the case, in seconds."""
    stdout: str = ""
    """What the agent wrote to stdout during the case, bounded and redacted (empty: nothing)."""
    stderr: str = ""
    """What the agent wrote to stderr during the case, bounded and redacted."""
    skipped: str | None = None
    """Why the case was not run (its fixture's `skip`), or None."""
    case_id: str = ""
    """The case's stable id (the fixture's `id`, else its file name's stem)."""
    case_hash: str = ""
    """`sha256:...` of the fixture's canonical JSON: what the case says, not how it is written."""

    @property
    def passed(self) -> bool:
        """No error, at least one grade, and every grade passed (never for a skipped case)."""
        if self.error is not None or self.skipped is not None or not self.grades:
            return False
        return all(g.passed for g in self.grades)

    @property
    def outcome(self) -> str:
        """`errored`, `skipped`, `passed` or `failed`: the case's verdict, in one word."""
        if self.error is not None:
            return "errored"
        if self.skipped is not None:
            return "skipped"
        return "passed" if self.passed else "failed"

    @property
    def failing(self) -> bool:
        """Whether the case failed or errored (a skipped case neither passed nor failed)."""
        return self.error is not None or (self.skipped is None and not self.passed)

    @property
    def failed_grades(self) -> tuple[GradeResult, ...]:
        """The grades that did not pass."""
        return tuple(grade for grade in self.grades if not grade.passed)


class SuiteReport(msgspec.Struct, frozen=True, kw_only=True, dict=True):
    """A suite run's outcome."""

    suite: str
    """The suite name (its folder's base name)."""
    directory: str
    """The suite folder, as given."""
    mode: str
    """`replay` (Phase 0 runs nothing else)."""
    cases: tuple[CaseReport, ...]
    """Every case, in file-name order."""
    started_at: str = ""
    """When the run started, ISO 8601 in UTC."""
    duration: float = 0.0
    """Wall time of the run, in seconds."""
    shard: Shard | None = None
    """The slice of the suite this run covered, or None for all of it."""
    suite_total: int = -1
    """How many cases the whole suite holds (-1: the same as `total`)."""
    interrupted: str | None = None
    """The signal that stopped the run early (`SIGINT`, `SIGTERM`), or None."""
    stopped_early: bool = False
    """Whether the run stopped at its first failed or errored case (`--exitfirst`)."""
    selection: str | None = None
    """Which cases of the suite were chosen (`-k EXPR`, paths, `--last-failed`), or None."""
    tool_surface: str = ""
    """`sha256:...` of the registered tools' names and parameter schemas."""

    @property
    def total(self) -> int:
        """How many cases ran."""
        return len(self.cases)

    @functools.cached_property
    def passed(self) -> int:
        """How many cases passed (counted once: the report is frozen)."""
        return sum(case.passed for case in self.cases)

    @property
    def failed(self) -> int:
        """How many cases failed or errored (skipped ones neither passed nor failed)."""
        return self.total - self.passed - self.skipped

    @functools.cached_property
    def skipped(self) -> int:
        """How many cases were skipped, not run."""
        return sum(case.skipped is not None for case in self.cases)

    @functools.cached_property
    def errored(self) -> int:
        """How many of the failed cases errored."""
        return sum(case.error is not None for case in self.cases)

    @property
    def all_passed(self) -> bool:
        """Whether every case passed.

        A run of no case never passes, except a shard that the split left empty; nor does a
        run whose every case was skipped, which proved nothing.
        """
        return passes(
            failed=self.failed,
            total=self.total,
            shard=self.shard,
            interrupted=self.interrupted,
            skipped=self.skipped,
        )

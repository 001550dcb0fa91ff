"""Grading the side effects a run left in its workspace (`expects.workspace`)."""

from __future__ import annotations

import os
from collections.abc import Iterator

from harness.fixtures.format import Case, WorkspaceExpects
from harness.fixtures.paths import resolve_inside
from harness.grading.result import GradeContext, GradeResult
from harness.recording import RunRecord
from harness.text import quote

__all__ = ["READ_LIMIT", "WorkspaceGrader", "grade_workspace"]

READ_LIMIT = 16 * 1024 * 1024
"""Bytes of a workspace file read to look for a needle."""
NO_WORKSPACE = "the run left no workspace"
ESCAPES = "leads out of the case workspace (a symlink)"


class WorkspaceGrader:
    """The built-in grader of `expects.workspace`."""

    def grade(
        self, case: Case, record: RunRecord, context: GradeContext
    ) -> tuple[GradeResult, ...]:
        """One result per declared workspace check; none when the case declares none."""
        block = case.expects.workspace
        if block is None:
            return ()
        return tuple(grade_workspace(block, context.workspace))


def grade_workspace(block: WorkspaceExpects, root: str | None) -> Iterator[GradeResult]:
    """Each `file_exists`, `file_absent` and `file_contains` check, in that order."""
    for path in block.file_exists:
        target, problem = _target(root, path)
        if target is not None and not os.path.isfile(target):
            problem = "does not exist" if not os.path.lexists(target) else "is not a file"
        yield _result(f"file_exists({quote(path)})", problem, "exists")
    for path in block.file_absent:
        target, problem = _target(root, path)
        if root is None:
            problem = None  # nothing was written anywhere
        elif target is not None and os.path.lexists(target):
            problem = "exists"
        yield _result(f"file_absent({quote(path)})", problem, "absent")
    for entry in block.file_contains:
        target, problem = _target(root, entry.path)
        check = f"file_contains({quote(entry.path)}, {quote(entry.needle)})"
        if target is not None:
            text, problem = _read(target)
            if problem is None and entry.needle not in text:
                problem = f"not found; the file holds {quote(text)}"
        yield _result(check, problem, "found")


def _target(root: str | None, path: str) -> tuple[str | None, str | None]:
    if root is None:
        return None, NO_WORKSPACE
    target = resolve_inside(root, path)
    return (None, ESCAPES) if target is None else (target, None)


def _read(target: str) -> tuple[str, str | None]:
    try:
        with open(target, "rb") as file:
            data = file.read(READ_LIMIT)
    except FileNotFoundError:
        return "", "does not exist"
    except OSError as exc:
        return "", f"cannot be read: {exc.strerror or exc}"
    return data.decode("utf-8", "replace"), None


def _result(check: str, problem: str | None, ok: str) -> GradeResult:
    return GradeResult(
        check=check, passed=problem is None, detail=problem or ok, category="side_effect"
    )

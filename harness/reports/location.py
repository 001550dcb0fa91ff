"""Where a failure stands: the fixture file relative to the repository, and the line.

CI reporters (GitHub annotations, GitLab and Jenkins test reports) link a failure to a file
in the checkout, so a path must be relative to the repository root whether `--suite` was typed
absolute, `./evals/x` or `evals/x`. The root is the git top-level found above the suite (a
`.git` folder, or the `.git` file of a worktree), else the nearest folder holding a
`pyproject.toml`, else the current folder.

The line is that of the expectation the first failed check grades, found in the fixture file
only when a report asks for it.
"""

from __future__ import annotations

import functools
import os

from harness.fixtures.reading import expectation_line
from harness.reports.model import CaseReport

__all__ = [
    "Failure",
    "check_path",
    "failure_line",
    "first_failure",
    "relative_path",
    "repository_root",
]

_SCALARS = frozenset(
    {"max_tool_calls", "min_tool_calls", "exact_tool_calls", "all_tools_succeeded"}
)
"""The expectation kinds with one value; every other kind is a list (or `params`, an object)."""


@functools.cache
def repository_root(start: str) -> str:
    """The absolute repository root for files under the folder `start`."""
    folder = os.path.realpath(start or ".")
    for marker in (".git", "pyproject.toml"):
        current = folder
        while True:
            if os.path.exists(os.path.join(current, marker)):
                return current
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
    return os.path.realpath(os.curdir)


def relative_path(path: str, root: str | None = None, here: str | None = None) -> str:
    """`path` relative to the repository root (`root`, or the one found above `path`), with `/`.

    The folder is resolved (symlinks included), the file name kept: a fixture that is a
    symlink is still shown under its own name. `here`, the current folder, can be given by a
    caller that resolves many paths.
    """
    folder, slash, name = path.rpartition(os.sep)
    if not slash:
        folder, name = os.curdir, path
    # A relative folder is keyed with the current folder (`here`, found when not given),
    # which gives it its meaning.
    if here is None:
        here = "" if os.path.isabs(path) else os.getcwd()
    return _relative_folder(folder or os.sep, root, here) + name


@functools.lru_cache(maxsize=256)
def _relative_folder(folder: str, root: str | None, here: str) -> str:
    """`folder` (relative to `here`) relative to the root, with a trailing `/`.

    Cached: a suite's fixtures share one folder, resolved once rather than once a case.
    """
    real = os.path.realpath(os.path.join(here, folder))
    top = root if root is not None else repository_root(real)
    relative = os.path.relpath(real, top).replace(os.sep, "/")
    return "" if relative == "." else relative + "/"


class Failure:
    """The first failed check of a failing case, or its error, and how many more there are."""

    __slots__ = ("check", "detail", "index", "more")

    def __init__(self, check: str | None, detail: str, more: int, index: int = -1) -> None:
        self.check = check
        """The failed check's label, or None for an error or a case with no check."""
        self.detail = detail
        """What was observed (or the error)."""
        self.more = more
        """How many more checks failed."""
        self.index = index
        """The check's position among the case's grades."""

    def text(self) -> str:
        """`check: detail`, or the detail alone."""
        return self.detail if self.check is None else f"{self.check}: {self.detail}"


def first_failure(case: CaseReport) -> Failure:
    """The first reason `case` did not pass."""
    if case.error is not None:
        return Failure(None, f"error: {case.error}", 0)
    failed = [index for index, grade in enumerate(case.grades) if not grade.passed]
    if not failed:
        return Failure(None, "the case declares no check", 0)
    grade = case.grades[failed[0]]
    return Failure(grade.check, grade.detail, len(failed) - 1, failed[0])


def check_path(case: CaseReport, index: int) -> tuple[str | int, ...] | None:
    """The JSON path, in the fixture, of the expectation the `index`-th grade checks.

    Built-in checks are labelled `kind(...)` (`requests.kind(...)` for request checks) and
    come one per declared item, in declaration order, so the n-th grade of a kind is its n-th
    item. A label that names no expectation kind (a project's grader) has no path.
    """
    label = case.grades[index].check
    kind = label.partition("(")[0]
    if not kind or kind == label:
        return None
    steps = kind.split(".")
    if steps[0] == "requests" and len(steps) == 2:
        prefix: tuple[str, ...] = ("expects", "requests", steps[1])
    elif len(steps) == 1 and steps[0].isidentifier():
        prefix = ("expects", steps[0])
    else:
        return None
    if kind in _SCALARS:
        return prefix
    position = sum(1 for grade in case.grades[:index] if grade.check.partition("(")[0] == kind)
    return (*prefix, position)


def failure_line(case: CaseReport, failure: Failure) -> int | None:
    """The fixture line of `failure`'s expectation, or None (an error, an unknown check)."""
    if failure.check is None:
        return None
    path = check_path(case, failure.index)
    if path is None:
        return None
    return expectation_line(case.source, path)

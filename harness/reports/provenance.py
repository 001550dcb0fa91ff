"""Where a run came from: the git commit under test, when it can be known cheaply.

The commit is read off the repository's files (`HEAD`, the loose ref it names, else
`packed-refs`) rather than by starting `git`: every run asks, and a process start would cost
more than the rest of a small run's reporting. Whatever the files do not settle plainly (a
`GIT_DIR` override, the reftable format, an unexpected layout) is asked of `git rev-parse`.
"""

from __future__ import annotations

import functools
import os

__all__ = ["git_commit"]

_CI_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA")
_GIT_OVERRIDES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")
_HEX = frozenset("0123456789abcdef")


@functools.cache
def git_commit() -> str | None:
    """The commit under test: from CI's variables, else the repository's HEAD, else None."""
    for name in _CI_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    try:
        return _read_head(os.getcwd())
    except (OSError, ValueError):  # ValueError: the files do not settle it plainly
        return _ask_git()


def _read_head(start: str) -> str | None:
    """HEAD's commit in the repository around `start`, None outside one or on an unborn branch.

    Raises:
        ValueError: The files do not settle it plainly (git is asked then).
    """
    if any(os.environ.get(name) for name in _GIT_OVERRIDES):
        raise ValueError("GIT_DIR and the like are set")
    git_dir = _git_dir(start)
    if git_dir is None:
        return None
    common = git_dir
    if os.path.isfile(os.path.join(git_dir, "commondir")):  # a linked worktree
        common = os.path.join(git_dir, _first_line(os.path.join(git_dir, "commondir")))
    if os.path.isdir(os.path.join(common, "reftable")):
        raise ValueError("reftable refs")
    value: str | None = _first_line(os.path.join(git_dir, "HEAD"))
    for _ in range(5):  # a symbolic ref may name another one
        if value is None:
            return None  # the branch has no commit yet
        if not value.startswith("ref: "):
            return _commit(value)
        value = _ref(git_dir, common, value.removeprefix("ref: ").strip())
    raise ValueError("symbolic refs nest too deep")


def _git_dir(start: str) -> str | None:
    """The `.git` folder of the repository around `start`, as git finds it, or None."""
    ceilings = {
        os.path.realpath(path)
        for path in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep)
        if path
    }
    folder = os.path.realpath(start)
    while True:
        candidate = os.path.join(folder, ".git")
        if os.path.isdir(candidate):
            return candidate
        if os.path.isfile(candidate):  # a worktree or submodule: `gitdir: PATH`
            line = _first_line(candidate)
            if not line.startswith("gitdir: "):
                raise ValueError(candidate)
            return os.path.join(folder, line.removeprefix("gitdir: "))
        parent = os.path.dirname(folder)
        if parent == folder or parent in ceilings:
            return None
        folder = parent


def _ref(git_dir: str, common: str, name: str) -> str | None:
    """What the ref `name` holds (a commit or `ref: ...`), or None if it does not exist."""
    if not name.startswith("refs/") or ".." in name.split("/"):
        raise ValueError(name)
    # Per-worktree refs live beside the worktree's HEAD; branches and tags in the common dir.
    for folder in dict.fromkeys((git_dir, common)):
        path = os.path.join(folder, *name.split("/"))
        if os.path.isfile(path):
            return _first_line(path)
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8") as packed:
            for line in packed:
                commit, _, ref = line.rstrip("\n").partition(" ")
                if ref == name:
                    return commit
    except FileNotFoundError:
        pass
    return None


def _commit(value: str) -> str:
    value = value.strip()
    if len(value) not in (40, 64) or not _HEX.issuperset(value):
        raise ValueError(value)
    return value


def _first_line(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.readline().strip()


def _ask_git() -> str | None:
    # Deferred: the fallback when .git cannot be read directly; subprocess's import would
    # slow the start of every run.
    import subprocess

    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None

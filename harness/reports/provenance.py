"""Where a run came from: the git commit under test, when it can be known cheaply."""

from __future__ import annotations

import functools
import os
import subprocess

__all__ = ["git_commit"]

_CI_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA")


@functools.cache
def git_commit() -> str | None:
    """The commit under test: from CI's variables, else `git rev-parse HEAD`, else None."""
    for name in _CI_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
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

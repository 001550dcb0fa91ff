"""Git commit detection."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.reports import provenance


@pytest.mark.parametrize("variable", ["GITHUB_SHA", "CI_COMMIT_SHA"])
def test_ci_variables_win(monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    """CI's own commit variable is used when set."""
    provenance.git_commit.cache_clear()
    monkeypatch.delenv("GITHUB_SHA", raising=False)
    monkeypatch.delenv("CI_COMMIT_SHA", raising=False)
    monkeypatch.setenv(variable, "feedface")
    try:
        assert provenance.git_commit() == "feedface"
    finally:
        provenance.git_commit.cache_clear()


def test_outside_a_repository_there_is_no_commit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    """Without CI variables or git history the commit is unknown, not an error."""
    provenance.git_commit.cache_clear()
    monkeypatch.delenv("GITHUB_SHA", raising=False)
    monkeypatch.delenv("CI_COMMIT_SHA", raising=False)
    monkeypatch.chdir(str(tmp_path))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    try:
        assert provenance.git_commit() is None
    finally:
        provenance.git_commit.cache_clear()


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "harness_user",
        "GIT_AUTHOR_EMAIL": "harness_user@example.com",
        "GIT_COMMITTER_NAME": "harness_user",
        "GIT_COMMITTER_EMAIL": "harness_user@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A repository with two commits on `main`, and git never asked from the harness."""
    for name in ("GITHUB_SHA", "CI_COMMIT_SHA", "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for message in ("first", "second"):
        _git(root, "commit", "-q", "--allow-empty", "-m", message)

    def no_git() -> None:
        raise AssertionError("git was started")

    monkeypatch.setattr(provenance, "_ask_git", no_git)
    provenance.git_commit.cache_clear()
    yield root
    provenance.git_commit.cache_clear()


def _head(cwd: Path) -> str | None:
    provenance.git_commit.cache_clear()
    return provenance._read_head(str(cwd))


def test_the_files_give_what_git_gives(repo: Path) -> None:
    """A branch's loose ref, from the root and from a subfolder, without starting git."""
    (repo / "sub" / "deeper").mkdir(parents=True)
    expected = _git(repo, "rev-parse", "HEAD")
    assert _head(repo) == expected
    assert _head(repo / "sub" / "deeper") == expected


def test_packed_refs_and_a_detached_head(repo: Path) -> None:
    """After `git pack-refs` the branch is read from packed-refs; a detached HEAD as it is."""
    expected = _git(repo, "rev-parse", "HEAD")
    _git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert _head(repo) == expected
    first = _git(repo, "rev-parse", "HEAD~1")
    _git(repo, "checkout", "-q", "--detach", "HEAD~1")
    assert _head(repo) == first


def test_a_linked_worktree_reads_its_own_head(repo: Path, tmp_path: Path) -> None:
    """A worktree's `.git` file leads to its own HEAD and to the common refs."""
    _git(repo, "branch", "side", "HEAD~1")
    linked = tmp_path / "linked"
    _git(repo, "worktree", "add", "-q", str(linked), "side")
    assert (linked / ".git").is_file()
    assert _head(linked) == _git(repo, "rev-parse", "side")
    assert _head(repo) == _git(repo, "rev-parse", "main")


def test_an_unborn_branch_has_no_commit(tmp_path: Path) -> None:
    """A fresh `git init` has a HEAD naming a branch with no commit yet: no commit, no error."""
    _git(tmp_path, "init", "-q", "-b", "main")
    assert _head(tmp_path) is None


def test_overrides_are_left_to_git(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With GIT_DIR set, the files are not guessed at: git is asked."""
    asked: list[bool] = []

    def ask() -> str:
        asked.append(True)
        return "feedface"

    monkeypatch.setattr(provenance, "_ask_git", ask)
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.chdir(repo)
    assert provenance.git_commit() == "feedface"
    assert asked == [True]

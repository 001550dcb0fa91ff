"""Git commit detection."""

from __future__ import annotations

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

"""Where a failure stands: repository-relative paths and the expectation a check grades."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.grading.result import GradeResult
from harness.reports.location import check_path, first_failure, relative_path, repository_root
from harness.reports.model import CaseReport


def case(*checks: tuple[str, bool]) -> CaseReport:
    grades = tuple(GradeResult(check=check, passed=passed, detail="d") for check, passed in checks)
    return CaseReport(name="c", source="s/c.json", grades=grades)


def test_the_root_is_the_git_top_level_else_the_project_folder(tmp_path: Path) -> None:
    (tmp_path / "repo" / "sub" / "evals").mkdir(parents=True)
    (tmp_path / "repo" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file
    (tmp_path / "repo" / "sub" / "pyproject.toml").write_text("")
    assert repository_root(str(tmp_path / "repo" / "sub" / "evals")) == str(tmp_path / "repo")
    (tmp_path / "project" / "evals").mkdir(parents=True)
    (tmp_path / "project" / "pyproject.toml").write_text("")
    assert repository_root(str(tmp_path / "project" / "evals")) == str(tmp_path / "project")


def test_a_relative_path_follows_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same relative text names different files from different folders."""
    for name in ("one", "two"):
        (tmp_path / name / "evals").mkdir(parents=True)
        (tmp_path / name / ".git").mkdir()
    monkeypatch.chdir(tmp_path / "one")
    assert relative_path("evals/a.json") == "evals/a.json"
    monkeypatch.chdir(tmp_path / "two" / "evals")
    assert relative_path("a.json") == "evals/a.json"
    assert relative_path("./a.json") == "evals/a.json"
    assert relative_path(str(tmp_path / "one" / "evals" / "a.json")) == "evals/a.json"


def test_check_path_maps_each_check_to_its_declared_item() -> None:
    """The n-th grade of a kind is its n-th item; scalars and request checks too."""
    report = case(
        ('response_contains("a")', True),
        ('response_contains("b")', False),
        ("max_tool_calls(1)", False),
        ('requests.params("t", 0)', False),
        ("my own check", False),
        ("weird.kind.deep(x)", False),
    )
    assert check_path(report, 1) == ("expects", "response_contains", 1)
    assert check_path(report, 2) == ("expects", "max_tool_calls")
    assert check_path(report, 3) == ("expects", "requests", "params", 0)
    assert check_path(report, 4) is None
    assert check_path(report, 5) is None


def test_first_failure_counts_the_others() -> None:
    failure = first_failure(case(("a", True), ("b", False), ("c", False)))
    assert (failure.check, failure.more, failure.index, failure.text()) == ("b", 1, 1, "b: d")
    errored = first_failure(CaseReport(name="e", source="e.json", error="boom"))
    assert (errored.check, errored.text()) == (None, "error: boom")
    assert first_failure(CaseReport(name="n", source="n.json")).text() == (
        "the case declares no check"
    )

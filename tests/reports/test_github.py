"""GitHub job summary and annotations."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._cli.main import main
from harness.grading.result import GradeResult
from harness.reports.github import MAX_ANNOTATIONS, annotation_commands, step_summary
from harness.reports.model import CaseReport, SuiteReport
from tests.builders import echo_trace
from tests.conftest import WriteFixture


def failing(name: str, detail: str = "not found") -> CaseReport:
    check = GradeResult(check='response_contains("x")', passed=False, detail=detail)
    return CaseReport(name=name, source=f"evals/s/{name}.json", grades=(check,))


def report(*cases: CaseReport) -> SuiteReport:
    return SuiteReport(suite="s", directory="evals/s", mode="replay", cases=cases)


def test_summary_is_a_pipe_table_with_failed_checks() -> None:
    """Each case is a row; each failed check is listed under Failures."""
    ok = CaseReport(
        name="ok",
        source="evals/s/ok.json",
        grades=(GradeResult(check="a", passed=True, detail="y"),),
    )
    text = step_summary(report(ok, failing("bad|name")))
    assert "| ✅ | ok | `evals/s/ok.json` | 1/1 |" in text
    assert "| ❌ | bad\\|name | `evals/s/bad|name.json`" not in text
    assert "bad\\|name" in text
    assert '- **bad\\|name**: response_contains("x"): not found' in text


def test_annotations_point_at_the_fixture_and_escape_their_text() -> None:
    """::error with file and title; newlines, commas and colons are escaped."""
    (command,) = annotation_commands(report(failing("a,b:c", "line1\nline2 100%")))
    assert command == (
        "::error file=evals/s/a%2Cb%3Ac.json,title=a%2Cb%3Ac::"
        'response_contains("x"): line1%0Aline2 100%25'
    )


def test_annotations_are_capped() -> None:
    """At most MAX_ANNOTATIONS per run."""
    cases = [failing(f"c{i}") for i in range(MAX_ANNOTATIONS + 5)]
    assert len(annotation_commands(report(*cases))) == MAX_ANNOTATIONS


def test_cli_appends_the_summary_and_emits_annotations(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With GITHUB_STEP_SUMMARY set, the Markdown is appended; in Actions, annotations print."""
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = write_fixture("a.json", echo_trace(expects={"response_contains": ["zz"]}))
    assert main(["run", "--suite", str(path.parent)]) == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n### harness: suite (replay)")
    assert f"::error file={path},title=single-tool-echo::" in capsys.readouterr().out


def test_annotations_go_to_stderr_when_stdout_is_json(
    write_fixture: WriteFixture, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--format json keeps stdout pure JSON."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    path = write_fixture("a.json", echo_trace(expects={"response_contains": ["zz"]}))
    assert main(["run", "--suite", str(path.parent), "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert "::error" not in captured.out
    assert "::error" in captured.err

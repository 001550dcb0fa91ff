"""GitHub job summary and annotations."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from harness._cli.main import main
from harness.grading.result import GradeResult
from harness.reports.github import (
    MAX_ANNOTATIONS,
    SUMMARY_LIMIT,
    annotation_commands,
    step_summary,
)
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
    assert "| ✅ | ok | evals/s/ok.json | 1/1 |" in text
    assert "| ❌ | bad\\|name | evals/s/bad\\|name.json | 0/1 |" in text
    assert '- **bad\\|name**: response_contains("x"): not found' in text
    assert text.index("#### Failures") < text.index("#### Cases")


def test_summary_escapes_html_and_control_characters() -> None:
    """Raw HTML, ANSI and controls from a response never reach GitHub's Markdown as such."""
    hostile = "<img src=x onerror=alert(1)> <details>\x1b[31mred\x00 lone\ud800"
    text = step_summary(report(failing(hostile, hostile)))
    assert "<img" not in text
    assert "<details>" not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "\x1b" not in text
    assert "\x00" not in text
    assert "\\x00 lone\\ud800" in text
    text.encode("utf-8")  # no lone surrogate left


def test_summary_stays_under_one_mebibyte_and_says_what_it_left_out() -> None:
    """10k failing cases: the recap and the first failures whole, then where the rest is."""
    cases = [failing(f"case-{index:05}", "x" * 300) for index in range(10_000)]
    text = step_summary(report(*cases), artifacts=["artifacts/regression.junit.xml"])
    assert len(text.encode()) <= SUMMARY_LIMIT < 1_048_576
    assert text.startswith("### harness: s (replay)\n\n0/10000 cases passed, ❌ 10000 failed\n")
    assert f'- **case-00000**: response_contains("x"): {"x" * 300}' in text
    last = text.rstrip("\n").splitlines()[-1]
    assert last.startswith("_Not shown: ")
    shown = text.count("\n- **case-")
    assert f"{10_000 - shown} failing case(s) of 10000" in last
    assert "artifacts/regression.junit.xml" in last
    assert "#### Cases" not in text  # cut in the failures: the table is left out whole


def test_a_small_summary_is_never_cut() -> None:
    """Under the limit, every failure and every row is there and nothing is said left out."""
    text = step_summary(report(*(failing(f"c{i}") for i in range(20))))
    assert "Not shown" not in text
    assert text.count("| ❌ |") == 20


def test_annotations_point_at_the_fixture_and_escape_their_text() -> None:
    """::error with file and title; newlines, commas and colons are escaped."""
    (command,) = annotation_commands(report(failing("a,b:c", "line1\nline2 100%")))
    assert command == (
        "::error file=evals/s/a%2Cb%3Ac.json,title=a%2Cb%3Ac::"
        'response_contains("x"): line1%0Aline2 100%25'
    )


def test_annotations_cannot_inject_workflow_commands() -> None:
    """`::` in observed text is broken up; controls are escaped; one command, one line."""
    hostile = "x\n::stop-commands::abc\n::add-mask::secret\x1b[2J\x07 \ud800"
    (command,) = annotation_commands(report(failing("n::ame", hostile)))
    assert "\n" not in command
    assert "\r" not in command
    data = command.split("::", 2)[2]
    assert "::" not in data
    assert ": :stop-commands: :abc" in data
    assert "\x1b" not in command
    assert "\\x07 \\ud800" in data
    command.encode("utf-8")


def test_annotations_count_the_other_failed_checks() -> None:
    """The message is the first failed check, and how many more failed."""
    checks = tuple(GradeResult(check=f"c{index}", passed=False, detail="d") for index in range(3))
    case = CaseReport(name="m", source="evals/s/m.json", grades=checks)
    (command,) = annotation_commands(report(case))
    assert command.endswith("::c0: d (+2 more)")


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
    monkeypatch.chdir(tmp_path)
    trace = echo_trace(expects={"response_contains": ["zz"]})
    path = write_fixture("a.json", json.dumps(trace, indent=2))
    line = path.read_text().splitlines().index('      "zz"') + 1
    assert main(["run", "--suite", str(path.parent)]) == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n### harness: suite (replay)")
    out = capsys.readouterr().out
    assert f"::error file=suite/a.json,line={line},title=single-tool-echo::" in out


def test_a_runs_annotation_points_at_the_failed_item_after_a_passing_one(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A passing check before the failed one of its kind still counts: the line is the second
    item's, as the run holds each passing check's label until the annotations are written."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.chdir(tmp_path)
    trace = echo_trace(expects={"response_contains": ["hello", "zz"]})
    path = write_fixture("a.json", json.dumps(trace, indent=2))
    line = path.read_text().splitlines().index('      "zz"') + 1
    assert main(["run", "--suite", str(path.parent)]) == 1
    out = capsys.readouterr().out
    assert f"::error file=suite/a.json,line={line},title=single-tool-echo::" in out


def test_one_matrix_leg_reports_with_the_env_flag(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """HARNESS_GITHUB_REPORT=0 writes neither summary nor annotations."""
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("HARNESS_GITHUB_REPORT", "0")
    path = write_fixture("a.json", echo_trace(expects={"response_contains": ["zz"]}))
    assert main(["run", "--suite", str(path.parent)]) == 1
    assert not summary.exists()
    assert "::error" not in capsys.readouterr().out


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


def _summary_run(tmp_path: Path, summary: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """`harness run` of a passing one-case suite in a child, GITHUB_STEP_SUMMARY=`summary`."""
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(echo_trace(model_name="a")))
    env = {**os.environ, "GITHUB_STEP_SUMMARY": summary, "GITHUB_ACTIONS": "", "NO_COLOR": "1"}
    argv = [sys.executable, "-m", "harness", "run", "--suite", str(folder), *flags]
    # the bound fails a hang instead of blocking CI; it is not a timing assertion
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize("flag", ["--json", "--junit", "--write-baseline"])
def test_a_summary_that_is_an_output_of_the_run_is_not_appended_to(
    tmp_path: Path, flag: str
) -> None:
    """GITHUB_STEP_SUMMARY naming the JSON report (or another output) leaves it whole."""
    output = tmp_path / "out"
    done = _summary_run(tmp_path, str(output), flag, str(output))
    assert done.returncode == 0
    assert done.stderr == (
        f"harness: {output}: GITHUB_STEP_SUMMARY is an output of this run: no job summary written\n"
    )
    assert "### harness" not in output.read_text()


def test_a_summary_that_is_a_fifo_is_skipped_never_waited_on(tmp_path: Path) -> None:
    """A FIFO (no reader) as the job summary: a warning, the run's own status, no hang."""
    fifo = tmp_path / "summary"
    os.mkfifo(fifo)
    done = _summary_run(tmp_path, str(fifo))
    assert done.returncode == 0
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"harness: {fifo}: ")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_skipped_case_is_neither_a_failure_nor_an_annotation() -> None:
    """Skipped is its own verdict: no `::error`, not under Failures, marked as skipped."""
    skipped = CaseReport(name="later", source="evals/s/later.json", skipped="not yet")
    text = step_summary(report(skipped, failing("bad")))
    assert "| ⏭️ | later | evals/s/later.json | skipped |" in text
    failures = text[text.index("#### Failures") : text.index("#### Cases")]
    assert "later" not in failures
    assert "bad" in failures
    commands = annotation_commands(report(skipped, failing("bad")))
    assert len(commands) == 1
    assert "title=bad" in commands[0]

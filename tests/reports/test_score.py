"""Partial scores and per-category counts in the JSON report; skipped cases everywhere."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import harness.grading.graders as graders
from harness._cli.main import main
from harness.errors import ExtensionError, HistoryError
from harness.fixtures.format import Case
from harness.fixtures.reading import decode_trace
from harness.fixtures.suite import load_suite
from harness.grading.result import GradeContext, GradeResult
from harness.pipeline.dispatch import run_suite
from harness.recording import RunRecord
from harness.reports.document import decode_document, from_document
from harness.reports.junit import to_junit_xml
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.table import render_table
from harness.reports.writers import to_json
from tests.builders import echo_trace
from tests.conftest import WriteFixture


def _grade(check: str, passed: bool, category: str) -> GradeResult:
    return GradeResult(check=check, passed=passed, detail="-", category=category)  # type: ignore[arg-type]


def test_case_and_run_scores_and_categories_in_the_json_report() -> None:
    """`7/9 checks`-style scores per case and for the run, and counts per category."""
    one = CaseReport(
        name="a",
        source="a.json",
        grades=(
            _grade("x", True, "tool"),
            _grade("y", False, "tool"),
            _grade("z", True, "response"),
        ),
    )
    two = CaseReport(name="b", source="b.json", grades=(_grade("w", True, "side_effect"),))
    report = SuiteReport(suite="s", directory="s", mode="replay", cases=(one, two))
    document = json.loads(to_json(report))
    assert document["score"] == "3/4 checks"
    assert document["checks"] == {"passed": 3, "total": 4}
    assert document["categories"] == {
        "response": {"passed": 1, "total": 1},
        "tool": {"passed": 1, "total": 2},
        "side_effect": {"passed": 1, "total": 1},
    }
    first = document["cases"][0]
    assert first["score"] == "2/3 checks"
    assert first["categories"]["tool"] == {"passed": 1, "total": 2}
    again = from_document(decode_document(to_json(report), "r.json", HistoryError))
    assert json.loads(to_json(again)) == document


def test_a_skipped_case_is_not_run_and_never_passed(write_fixture: WriteFixture) -> None:
    """skip: reported with its reason as skipped (JUnit <skipped/>), counted, not passed."""
    write_fixture("a.json", echo_trace(model_name="a"))
    broken = echo_trace(
        model_name="b",
        skip="waiting on the upstream fix",
        turns=[
            {
                "user_input": "x",
                "steps": [{"response": {"type": "text", "content": "never replayed"}}],
            }
        ],
    )
    suite_dir = write_fixture("b.json", broken).parent
    report = run_suite(load_suite(str(suite_dir)))
    skipped = report.cases[1]
    assert skipped.skipped == "waiting on the upstream fix"
    assert not skipped.passed
    assert skipped.grades == ()
    assert (report.passed, report.failed, report.skipped, report.all_passed) == (1, 0, 1, True)
    document = json.loads(to_json(report))
    assert document["skipped"] == 1
    assert document["cases"][1]["skipped"] == "waiting on the upstream fix"
    assert document["cases"][1]["passed"] is False
    root = ET.fromstring(to_junit_xml(report))
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("skipped") == "1"
    (mark,) = root.iter("skipped")
    assert mark.get("message") == "waiting on the upstream fix"
    table = render_table(report)
    assert "skipped: waiting on the upstream fix" in table
    assert re.search(r"\n1 passed, 1 skipped \(not run, not passed\) in \d+\.\d\ds$", table)


def test_a_run_of_only_skipped_cases_does_not_pass(write_fixture: WriteFixture) -> None:
    """Nothing ran, so nothing was proven."""
    suite_dir = write_fixture("a.json", echo_trace(skip="later")).parent
    assert not run_suite(load_suite(str(suite_dir))).all_passed


GRADERS = """
from harness import GradeResult

class Always:
    def grade(self, case, record, context):
        return [GradeResult(check="project(always)", passed=True, detail="ok", category="config")]

class Nothing:
    def grade(self, case, record, context):
        return []

class Broken:
    def grade(self, case, record, context):
        raise RuntimeError("boom")

def always(): return Always()
def nothing(): return Nothing()
def broken(): return Broken()
def not_a_grader(): return 42
"""


def _project(tmp_path: Path, graders: list[str], expects: dict[str, object] | None = None) -> Path:
    (tmp_path / "project_graders.py").write_text(GRADERS)
    suite = tmp_path / "suite"
    suite.mkdir()
    trace = echo_trace() if expects is None else echo_trace(expects=expects)
    (suite / "a.json").write_text(json.dumps(trace))
    listed = ", ".join(f'"project_graders:{name}"' for name in graders)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.harness]\nsuite_dir = "suite"\ngraders = [{listed}]\n'
    )
    return tmp_path


def test_configured_graders_run_after_the_built_ins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`graders = ["module:factory"]` adds the project's checks to every case."""
    monkeypatch.chdir(_project(tmp_path, ["always"]))
    assert main(["run", "--format", "json"]) == 0
    grades = json.loads(capsys.readouterr().out)["cases"][0]["grades"]
    assert grades[-1] == {
        "check": "project(always)",
        "passed": True,
        "detail": "ok",
        "category": "config",
    }


def test_a_raising_grader_errors_its_case_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The case errors; the message names the grader."""
    monkeypatch.chdir(_project(tmp_path, ["broken"]))
    assert main(["run", "--format", "json"]) == 1
    case = json.loads(capsys.readouterr().out)["cases"][0]
    assert case["error"] == "grader Broken failed: RuntimeError: boom"


def test_a_factory_that_makes_no_grader_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2, naming the key."""
    monkeypatch.chdir(_project(tmp_path, ["always", "not_a_grader"]))
    assert main(["run"]) == 2
    assert (
        "[tool.harness].graders[1]: project_graders:not_a_grader made int"
        in capsys.readouterr().err
    )


def test_an_empty_grade_list_is_an_error_never_a_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """No grade at all, from every grader, errors the case."""

    class Nothing:
        def grade(self, case: object, record: object, context: object) -> list[GradeResult]:
            return []

    trace = decode_trace("a.json", json.dumps(echo_trace()).encode())
    monkeypatch.setattr(graders, "BUILT_IN", ())
    with pytest.raises(ExtensionError, match="empty grade list is never a pass"):
        graders.grade_case(
            Case(source="a.json", trace=trace), RunRecord(), GradeContext(), (Nothing(),)
        )


FORGING_GRADER = """
from harness import GradeResult

class Forging:
    def grade(self, case, record, context):
        real = GradeResult(check="project(real)", passed=True, detail="", category="config")
        return [real, {"check": "project(forged)", "passed": True, "detail": "", "category": "x"}]

def forging(): return Forging()
"""


def test_a_grader_returning_what_is_not_grades_errors_its_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dict shaped like a passing grade, even beside a real one, is refused: never a pass."""
    project = _project(tmp_path, [])
    (project / "forging_grader.py").write_text(FORGING_GRADER)
    (project / "pyproject.toml").write_text(
        '[tool.harness]\nsuite_dir = "suite"\ngraders = ["forging_grader:forging"]\n'
    )
    monkeypatch.chdir(project)
    assert main(["run", "--format", "json"]) == 1
    case = json.loads(capsys.readouterr().out)["cases"][0]
    assert case["error"].startswith("grader Forging returned something that is not a GradeResult")
    assert "'passed': True" in case["error"]  # the culprit is quoted
    assert case["grades"] == []

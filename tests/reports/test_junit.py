"""JUnit XML: what GitHub and GitLab read, and junit-xml's traps guarded."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema

from harness._cli.main import main
from harness.grading.result import GradeResult
from harness.reports.junit import DETAIL_LIMIT, to_junit_xml
from harness.reports.model import CaseReport, SuiteReport
from harness.version import __version__
from tests.builders import echo_trace, record, text_step
from tests.conftest import WriteFixture

SCHEMA = xmlschema.XMLSchema(
    str(Path(__file__).resolve().parents[1].joinpath("data") / "junit.xsd")
)
HOSTILE = "bad\x00nul \x1b[31mred\x1b[0m lone\ud800surrogate"


def grade(check: str, passed: bool, detail: str = "seen") -> GradeResult:
    return GradeResult(check=check, passed=passed, detail=detail)


def mixed_report() -> SuiteReport:
    return SuiteReport(
        suite="regression",
        directory="evals/regression",
        mode="replay",
        started_at="2026-01-02T03:04:05.678Z",
        duration=0.25,
        cases=(
            CaseReport(
                name="passing", source="evals/regression/a.json", grades=(grade("a", True),)
            ),
            CaseReport(
                name="failing",
                source="evals/regression/b.json",
                grades=(
                    grade("a", True),
                    grade("b", False, "b missed"),
                    grade("c", False, "c missed"),
                ),
                record=record(HOSTILE, (("echo", '{"message":"x"}', HOSTILE, False),)),
                duration=0.125,
            ),
            CaseReport(name="errored", source="evals/regression/c.json", error=f"boom: {HOSTILE}"),
        ),
    )


def parse(xml: bytes) -> ET.Element:
    return ET.fromstring(xml)


def test_junit_parses_and_validates_against_the_common_schema() -> None:
    """Hostile characters never make the document malformed or invalid."""
    xml = to_junit_xml(mixed_report(), git_commit="abc123")
    root = parse(xml)
    assert root.tag == "testsuites"
    SCHEMA.validate(xml.decode())


def test_one_testsuite_named_after_the_suite_with_properties() -> None:
    """The testsuite carries the suite name, timestamp and run properties."""
    (suite,) = parse(to_junit_xml(mixed_report(), git_commit="abc123")).iter("testsuite")
    assert suite.get("name") == "regression"
    assert suite.get("timestamp") == "2026-01-02T03:04:05.678Z"
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties == {"mode": "replay", "harness_version": __version__, "git_commit": "abc123"}


def test_unknown_commit_is_left_out() -> None:
    """No git_commit property when the commit is unknown."""
    (suite,) = parse(to_junit_xml(mixed_report())).iter("testsuite")
    assert "git_commit" not in {p.get("name") for p in suite.iter("property")}


def test_testcase_attributes_and_time_always_present() -> None:
    """name, classname, file and time (0.000 included) on every testcase."""
    cases = list(parse(to_junit_xml(mixed_report())).iter("testcase"))
    assert [(c.get("name"), c.get("classname"), c.get("file")) for c in cases] == [
        ("passing", "harness.regression", "evals/regression/a.json"),
        ("failing", "harness.regression", "evals/regression/b.json"),
        ("errored", "harness.regression", "evals/regression/c.json"),
    ]
    assert [c.get("time") for c in cases] == ["0.000", "0.125", "0.000"]


def test_failure_has_a_count_message_and_a_body_naming_each_failed_check() -> None:
    """GitLab shows the body, so the body lists every failed check with its detail."""
    failing = parse(to_junit_xml(mixed_report())).findall(".//testcase[@name='failing']")[0]
    (failure,) = failing.findall("failure")
    assert failure.get("message") == "2 of 3 checks failed"
    assert failure.text == "✗ b: b missed\n✗ c: c missed"


def test_error_message_is_in_message_and_body() -> None:
    """A run error becomes <error> with the message twice."""
    errored = parse(to_junit_xml(mixed_report())).findall(".//testcase[@name='errored']")[0]
    (error,) = errored.findall("error")
    assert error.get("message") == error.text
    assert error.text is not None
    assert error.text.startswith("boom: bad\\x00nul red lone\\ud800")


def test_system_out_carries_the_tool_call_trace_and_final_response() -> None:
    """system-out shows each call and the final response, cleaned for XML."""
    failing = parse(to_junit_xml(mixed_report())).findall(".//testcase[@name='failing']")[0]
    out = failing.findtext("system-out") or ""
    assert 'echo {"message":"x"} -> "bad\\u0000nul \\u001b[31mred' in out
    assert "[FAILED]" in out
    assert 'final response: "bad' in out
    assert "\x1b" not in out
    assert "\x00" not in out


def test_a_case_without_grades_is_never_silently_passed() -> None:
    """junit-xml drops empty failures; a case that is not passed always gets one."""
    report = SuiteReport(
        suite="s", directory="s", mode="replay", cases=(CaseReport(name="empty", source="e.json"),)
    )
    (failure,) = parse(to_junit_xml(report)).iter("failure")
    assert failure.get("message")


def test_long_details_are_truncated_visibly() -> None:
    """A huge check detail is cut at DETAIL_LIMIT with a marker saying how much was dropped."""
    huge = CaseReport(
        name="huge",
        source="evals/s/huge.json",
        grades=(grade("a", False, "x" * (DETAIL_LIMIT + 10)),),
    )
    report = SuiteReport(suite="s", directory="evals/s", mode="replay", cases=(huge,))
    (failure,) = parse(to_junit_xml(report)).iter("failure")
    assert failure.text == f"✗ a: {'x' * DETAIL_LIMIT}…[truncated 10 chars]"


def test_cli_junit_counts_equal_the_json_report(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """End to end: passing, failing and errored fixtures; counts agree across artifacts."""
    write_fixture("a_pass.json", echo_trace(model_name="pass"))
    write_fixture(
        "b_fail.json", echo_trace(model_name="fail", expects={"response_contains": ["zz"]})
    )
    hostile_turns = [{"user_input": "hi", "steps": [text_step("nul\u0000 esc\u001b[2J done")]}]
    write_fixture(
        "c_hostile.json",
        echo_trace(
            model_name="hostile", turns=hostile_turns, expects={"response_contains": ["nope"]}
        ),
    )
    over = [{"user_input": "hi", "steps": [text_step("one"), text_step("two")]}]
    suite = write_fixture("d_error.json", echo_trace(model_name="error", turns=over)).parent
    junit, report = tmp_path / "out" / "r.junit.xml", tmp_path / "out" / "r.json"
    argv = ["run", "--suite", str(suite), "--junit", str(junit), "--json", str(report)]
    assert main([*argv, "--format", "json"]) == 1
    doc = json.loads(report.read_text())
    root = parse(junit.read_bytes())
    SCHEMA.validate(junit.read_text())
    (testsuite,) = root.iter("testsuite")
    failures, errors = int(testsuite.get("failures", "")), int(testsuite.get("errors", ""))
    assert int(testsuite.get("tests", "")) == doc["total"] == 4
    assert failures + errors == doc["failed"] == 3
    assert errors == doc["errored"] == 1
    for case in root.iter("testcase"):
        assert case.get("time") is not None
        for failure in case.iter("failure"):
            assert failure.text
            entry = next(c for c in doc["cases"] if c["name"] == case.get("name"))
            for failed in (g for g in entry["grades"] if not g["passed"]):
                assert failed["check"] in failure.text

"""JUnit XML: what GitLab, Jenkins and the GitHub reporters read, correct at the edges."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from harness._cli.main import main
from harness.grading.result import GradeResult
from harness.reports.junit import (
    DETAIL_LIMIT,
    MESSAGE_LIMIT,
    OUTPUT_LIMIT,
    junit_names,
    to_junit_xml,
)
from harness.reports.model import CaseReport, SuiteReport
from harness.text import QUOTE_LIMIT
from harness.version import __version__
from tests.builders import echo_trace, record, text_step
from tests.conftest import WriteFixture

DATA = Path(__file__).resolve().parents[1] / "data"
SCHEMA = xmlschema.XMLSchema(str(DATA / "junit.xsd"))
# The Jenkins xUnit plugin's junit-10.xsd, unmodified (jenkinsci/xunit-plugin 8c515de).
JENKINS = xmlschema.XMLSchema(str(DATA / "junit-10.xsd"))
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


def test_strict_flavor_validates_against_the_unmodified_jenkins_schema() -> None:
    """`strict` is junit-10 exactly; `full` differs from it by testcase file and line only."""
    strict = to_junit_xml(mixed_report(), git_commit="abc123", flavor="strict")
    JENKINS.validate(strict.decode())
    assert not [c for c in parse(strict).iter("testcase") if {"file", "line"} & set(c.attrib)]
    full = parse(to_junit_xml(mixed_report(), git_commit="abc123"))
    assert not JENKINS.is_valid(ET.tostring(full, encoding="unicode"))
    for case in full.iter("testcase"):
        case.attrib.pop("file")
        case.attrib.pop("line", None)
    JENKINS.validate(ET.tostring(full, encoding="unicode"))


def test_an_unknown_flavor_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown JUnit flavor"):
        to_junit_xml(mixed_report(), flavor="loose")


def test_one_testsuite_named_after_the_suite_with_properties() -> None:
    """The testsuite carries the suite name, run time, timestamp, host and run properties."""
    xml = to_junit_xml(mixed_report(), git_commit="abc123", hostname="ci-runner-1")
    (suite,) = parse(xml).iter("testsuite")
    assert suite.get("name") == "regression"
    assert suite.get("time") == parse(xml).get("time") == "0.250"
    assert suite.get("timestamp") == "2026-01-02T03:04:05.678Z"
    assert suite.get("hostname") == "ci-runner-1"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    assert parse(to_junit_xml(mixed_report())).find("testsuite").get("hostname")  # type: ignore[union-attr]
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties == {"mode": "replay", "harness_version": __version__, "git_commit": "abc123"}


def test_the_run_time_is_the_wall_time_not_the_cases_summed() -> None:
    """Cases run side by side take longer summed than the run did: the run's time is its own."""
    cases = tuple(
        CaseReport(
            name=f"c{index}", source=f"s/{index}.json", grades=(grade("a", True),), duration=0.4
        )
        for index in range(4)
    )
    report = SuiteReport(suite="s", directory="s", mode="replay", cases=cases, duration=0.5)
    root = parse(to_junit_xml(report, flavor="strict"))
    assert root.get("time") == root.find("testsuite").get("time") == "0.500"  # type: ignore[union-attr]
    assert "disabled" not in root.find("testsuite").attrib  # type: ignore[union-attr]


def test_unknown_commit_is_left_out() -> None:
    """No git_commit property when the commit is unknown."""
    (suite,) = parse(to_junit_xml(mixed_report())).iter("testsuite")
    assert "git_commit" not in {p.get("name") for p in suite.iter("property")}


def test_testcase_attributes_and_each_its_own_time() -> None:
    """name, classname, file and time (its own duration, 0 included) on every testcase."""
    cases = list(parse(to_junit_xml(mixed_report())).iter("testcase"))
    assert [(c.get("name"), c.get("classname"), c.get("file")) for c in cases] == [
        ("passing", "harness.regression", "evals/regression/a.json"),
        ("failing", "harness.regression", "evals/regression/b.json"),
        ("errored", "harness.regression", "evals/regression/c.json"),
    ]
    assert [c.get("time") for c in cases] == ["0.000000", "0.125000", "0.000000"]


def test_the_file_is_relative_to_the_repository_however_the_suite_was_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Absolute, `./x` and `x` give the same path, from the git top-level down."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "evals" / "s").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "evals")
    files = set()
    for source in ("s/a.json", "./s/a.json", str(tmp_path / "evals" / "s" / "a.json")):
        case = CaseReport(name="a", source=source, grades=(grade("a", True),))
        report = SuiteReport(
            suite="s", directory=source.rpartition("/")[0], mode="replay", cases=(case,)
        )
        root = parse(to_junit_xml(report))
        files.add((root.find("testsuite").get("file"), root.find(".//testcase").get("file")))  # type: ignore[union-attr]
    assert files == {("evals/s", "evals/s/a.json")}


def test_names_that_collide_after_cleaning_are_both_disambiguated() -> None:
    """Names differing only in control characters never merge; others stay as they are."""
    names = junit_names(
        [
            ("same\x1b[1m", "s/a.json"),
            ("same", "s/b.json"),
            ("tab\tname", "s/c.json"),
            ("x", "s/d.json"),
        ]
    )
    assert names == ["same [a.json]", "same [b.json]", "tab\\tname", "x"]
    assert junit_names([("a\nb", "s/a.json"), ("a b", "s/b.json")]) == [
        "a\\nb",
        "a b",
    ]
    assert junit_names([("a\u0085b", "s/a.json"), ("a\\x85b", "s/b.json")]) == [
        "a\\x85b [a.json]",
        "a\\x85b [b.json]",
    ]


def test_colliding_names_are_unique_in_the_document() -> None:
    """End to end, GitLab and EnricoMi see distinct (classname, name) pairs."""
    cases = tuple(
        CaseReport(name=name, source=f"evals/s/{index}.json", grades=(grade("a", False),))
        for index, name in enumerate(["dup\x00", "dup\\x00", "dup\x07"])
    )
    report = SuiteReport(suite="s", directory="evals/s", mode="replay", cases=cases)
    names = [case.get("name") for case in parse(to_junit_xml(report)).iter("testcase")]
    assert len(set(names)) == 3
    assert names == ["dup\\x00 [0.json]", "dup\\x00 [1.json]", "dup\\x07"]


def test_failure_message_names_the_first_failed_check_and_counts_the_rest() -> None:
    """dorny and mikepenz show only the message: it says why; the body lists every check."""
    failing = parse(to_junit_xml(mixed_report())).findall(".//testcase[@name='failing']")[0]
    (failure,) = failing.findall("failure")
    assert failure.get("message") == "b: b missed (+1 more)"
    assert failure.text == "✗ b: b missed\n✗ c: c missed"


def test_failure_message_is_one_bounded_line() -> None:
    """A multi-line or huge detail is cut to its first line, within MESSAGE_LIMIT."""
    detail = "first line\nsecond\nthird"
    case = CaseReport(name="m", source="e/m.json", grades=(grade("k", False, detail),))
    report = SuiteReport(suite="s", directory="e", mode="replay", cases=(case,))
    assert parse(to_junit_xml(report)).find(".//failure").get("message") == (  # type: ignore[union-attr]
        "k: first line …[+2 more lines]"
    )
    huge = CaseReport(name="h", source="e/h.json", grades=(grade("k", False, "y" * 9000),))
    report = SuiteReport(suite="s", directory="e", mode="replay", cases=(huge,))
    message = parse(to_junit_xml(report)).find(".//failure").get("message") or ""  # type: ignore[union-attr]
    assert message.startswith("k: yyy")
    assert message.endswith("…[truncated 8703 chars]")
    assert len(message) < MESSAGE_LIMIT + 40


def test_error_message_is_the_first_line_and_the_body_the_whole_error() -> None:
    """A run error becomes <error>: its message the error's first line, its body all of it."""
    errored = parse(to_junit_xml(mixed_report())).findall(".//testcase[@name='errored']")[0]
    (error,) = errored.findall("error")
    assert error.get("message") == error.text
    assert error.text is not None
    assert error.text.startswith("boom: bad\\x00nul red lone\\ud800")
    case = CaseReport(name="e", source="e/e.json", error="Traceback:\n  line 1\nValueError")
    report = SuiteReport(suite="s", directory="e", mode="replay", cases=(case,))
    (error,) = parse(to_junit_xml(report)).iter("error")
    assert error.get("message") == "Traceback: …[+2 more lines]"
    assert error.text == "Traceback:\n  line 1\nValueError"


def test_system_out_carries_the_tool_call_trace_and_final_response() -> None:
    """system-out shows each call and the final response, cleaned for XML."""
    failing = parse(to_junit_xml(mixed_report())).findall(".//testcase[@name='failing']")[0]
    out = failing.findtext("system-out") or ""
    assert 'echo {"message":"x"} -> "bad\\u0000nul \\u001b[31mred' in out
    assert "[FAILED]" in out
    assert 'final response: "bad' in out
    assert "\x1b" not in out
    assert "\x00" not in out


def test_system_out_cuts_the_middle_and_keeps_the_final_response() -> None:
    """A huge trace loses calls from its middle; the first calls and the final response stay."""
    calls = tuple(("echo", json.dumps({"n": index}), "r" * 1000, True) for index in range(200))
    case = CaseReport(
        name="long",
        source="e/long.json",
        grades=(grade("a", False),),
        record=record("THE FINAL ANSWER", calls),
    )
    report = SuiteReport(suite="s", directory="e", mode="replay", cases=(case,))
    out = parse(to_junit_xml(report)).findtext(".//system-out") or ""
    assert len(out) <= OUTPUT_LIMIT + 100
    assert out.startswith('tool calls: 200\n  1. echo {"n": 0} -> "rrr')
    assert "…[truncated " in out
    assert out.endswith('final response: "THE FINAL ANSWER"\ntokens: 0 in, 0 out')


def test_arguments_are_cut_like_results() -> None:
    """Neither a huge argument nor a huge result passes QUOTE_LIMIT characters."""
    big = "a" * (QUOTE_LIMIT + 500)
    case = CaseReport(
        name="args",
        source="e/args.json",
        grades=(grade("a", False),),
        record=record("done", (("echo", big, big, True),)),
    )
    report = SuiteReport(suite="s", directory="e", mode="replay", cases=(case,))
    out = parse(to_junit_xml(report)).findtext(".//system-out") or ""
    assert out.count("…[truncated 500 chars]") == 2


def test_attachment_markers_in_observed_text_are_neutralised() -> None:
    """`[[ATTACHMENT|/etc/passwd]]` from a tool result is no attachment for Jenkins or GitLab."""
    hostile = "[[ATTACHMENT|/etc/passwd]] and [[attachment|x]] [[PROPERTY|a=b]]"
    case = CaseReport(
        name="att",
        source="e/att.json",
        grades=(grade("a", False),),
        record=record(hostile, (("echo", hostile, hostile, True),)),
    )
    report = SuiteReport(suite="s", directory="e", mode="replay", cases=(case,))
    out = parse(to_junit_xml(report)).findtext(".//system-out") or ""
    assert not re.search(r"\[\[(ATTACHMENT|PROPERTY)\|", out, re.IGNORECASE)
    assert out.count("[ [ATTACHMENT|") == 3


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


def test_line_points_at_the_expectation_that_failed_first(
    write_fixture: WriteFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The testcase `line` is the fixture line of the first failed check's expectation."""
    trace = echo_trace(
        expects={
            "response_contains": ["echo tool", "missing"],
            "max_tool_calls": 0,
            "requests": None,
        }
    )
    del trace["expects"]["requests"]
    text = json.dumps(trace, indent=2)
    path = write_fixture("a.json", text)
    lines = text.splitlines()
    wanted = next(i for i, line in enumerate(lines, 1) if '"missing"' in line)
    monkeypatch.chdir(tmp_path)
    junit = tmp_path / "r.junit.xml"
    assert main(["run", "--suite", str(path.parent), "--junit", str(junit)]) == 1
    (case,) = parse(junit.read_bytes()).iter("testcase")
    assert case.get("file") == "suite/a.json"
    assert case.get("line") == str(wanted)
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message", "").startswith('response_contains("missing"): not found')
    assert failure.get("message", "").endswith("(+1 more)")


def test_a_name_that_collides_only_after_disambiguation_is_made_unique() -> None:
    """A case literally named `x [a.json]` beside two `x`: the colliding pair gets the path."""
    cases = tuple(
        CaseReport(name=name, source=source, grades=(grade("a", True),))
        for name, source in [("x", "s/a.json"), ("x", "s/b.json"), ("x [a.json]", "s/c.json")]
    )
    report = SuiteReport(suite="s", directory="s", mode="replay", cases=cases)
    names = [case.get("name") for case in parse(to_junit_xml(report)).iter("testcase")]
    assert names == ["x [a.json] [s/a.json]", "x [b.json]", "x [a.json] [s/c.json]"]


def test_an_interrupted_or_selected_run_says_so_in_its_properties() -> None:
    """A reader of the JUnit file alone learns the run was stopped, or ran a selection only."""
    report = SuiteReport(
        suite="s",
        directory="s",
        mode="replay",
        cases=(CaseReport(name="a", source="s/a.json", grades=(grade("a", True),)),),
        interrupted="SIGINT",
        selection="-k greeting",
    )
    (suite,) = parse(to_junit_xml(report)).iter("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert (properties["interrupted"], properties["selection"]) == ("SIGINT", "-k greeting")


def test_what_the_agent_printed_follows_the_trace_in_system_out() -> None:
    """Its stdout in system-out, after the calls; its stderr in system-err."""
    case = CaseReport(
        name="a",
        source="s/a.json",
        grades=(grade("a", True),),
        stdout="loaded 3 tools\n",
        stderr="warning: slow\n",
    )
    report = SuiteReport(suite="s", directory="s", mode="replay", cases=(case,))
    (testcase,) = parse(to_junit_xml(report)).iter("testcase")
    out = testcase.findtext("system-out") or ""
    assert out.endswith("\ncaptured stdout:\nloaded 3 tools\n")
    assert out.startswith("tool calls: 0")
    assert testcase.findtext("system-err") == "warning: slow\n"


def test_a_run_counts_its_skipped_cases_in_the_testsuite(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """The file `harness run` streams says how many cases were skipped, as the whole one does."""
    write_fixture("a.json", echo_trace(model_name="runs"))
    suite = write_fixture("b.json", echo_trace(model_name="later", skip="not yet")).parent
    junit = tmp_path / "r.junit.xml"
    assert main(["run", "--suite", str(suite), "--junit", str(junit)]) == 0
    (testsuite,) = parse(junit.read_bytes()).iter("testsuite")
    assert (testsuite.get("tests"), testsuite.get("skipped")) == ("2", "1")

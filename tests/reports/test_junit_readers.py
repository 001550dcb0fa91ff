"""JUnit XML read back by junitparser, as a CI reporter reads it: names, counts, messages,
file and line, properties and output."""

from __future__ import annotations

import json
from pathlib import Path

import junitparser
import pytest

from harness._cli.main import main
from harness.grading.result import GradeResult
from harness.reports.junit import BODY_LIMIT, OUTPUT_LIMIT, to_junit_xml
from harness.reports.model import CaseReport, SuiteReport
from harness.version import __version__
from tests.builders import echo_trace, record
from tests.conftest import WriteFixture


class LocatedCase(junitparser.TestCase):
    """A testcase with the `file` and `line` attributes GitLab and the GitHub reporters read."""

    file = junitparser.Attr()
    line = junitparser.IntAttr()


def located(case: junitparser.TestCase) -> LocatedCase:
    """`case` with its `file` and `line` readable."""
    found: LocatedCase = LocatedCase.fromelem(case)  # type: ignore[no-untyped-call]
    return found


def properties(suite: junitparser.TestSuite) -> dict[str, str]:
    """The suite's properties, by name."""
    found = suite.properties()  # type: ignore[no-untyped-call]
    return {prop.name: prop.value for prop in found}


def grade(check: str, passed: bool, detail: str = "seen") -> GradeResult:
    return GradeResult(check=check, passed=passed, detail=detail)


def report(
    *cases: CaseReport, interrupted: str | None = None, selection: str | None = None
) -> SuiteReport:
    return SuiteReport(
        suite="regression",
        directory="evals/regression",
        mode="replay",
        started_at="2026-01-02T03:04:05.678Z",
        duration=0.5,
        cases=cases,
        interrupted=interrupted,
        selection=selection,
    )


def read(xml: bytes) -> tuple[junitparser.JUnitXml, junitparser.TestSuite, list[LocatedCase]]:
    document = junitparser.JUnitXml.fromstring(xml)
    (suite,) = list(document)
    return document, suite, [located(case) for case in suite]


def every_outcome() -> SuiteReport:
    return report(
        CaseReport(name="passing", source="evals/regression/a.json", grades=(grade("a", True),)),
        CaseReport(
            name="failing",
            source="evals/regression/b.json",
            grades=(grade("a", True), grade("b", False, "b missed"), grade("c", False, "c")),
            record=record("the answer", (("echo", '{"m":"x"}', "x", True),)),
            duration=0.25,
            stderr="warning: slow\n",
        ),
        CaseReport(name="errored", source="evals/regression/c.json", error="boom\nat line 2"),
        CaseReport(name="skipped", source="evals/regression/d.json", skipped="not yet"),
    )


def test_counts_names_and_outcomes_read_back() -> None:
    """Each case is read with its own outcome; the suite's counts agree with them."""
    document, suite, cases = read(to_junit_xml(every_outcome(), git_commit="abc"))
    assert (suite.name, suite.tests, suite.failures, suite.errors, suite.skipped) == (
        "regression",
        4,
        1,
        1,
        1,
    )
    assert (document.name, document.tests, document.failures, document.errors) == (
        "harness.regression",
        4,
        1,
        1,
    )
    assert [case.name for case in cases] == ["passing", "failing", "errored", "skipped"]
    assert {case.classname for case in cases} == {"harness.regression"}
    assert [
        (case.is_passed, case.is_failure, case.is_error, case.is_skipped) for case in cases
    ] == [
        (True, False, False, False),
        (False, True, False, False),
        (False, False, True, False),
        (False, False, False, True),
    ]
    assert [case.time for case in cases] == [0.0, 0.25, 0.0, 0.0]
    assert (suite.time, suite.timestamp, document.time) == (0.5, "2026-01-02T03:04:05.678Z", 0.5)


def test_messages_and_bodies_read_back() -> None:
    """The failure's message is the first failed check; its body lists each; an error's
    message is its first line; a skip carries its reason."""
    _, _, cases = read(to_junit_xml(every_outcome()))
    (failure,) = cases[1].result
    assert (failure.type, failure.message) == ("failure", "b: b missed (+1 more)")
    assert failure.text == "✗ b: b missed\n✗ c: c"
    (error,) = cases[2].result
    assert (error.type, error.message, error.text) == (
        "error",
        "boom …[+1 more line]",
        "boom\nat line 2",
    )
    (skipped,) = cases[3].result
    assert skipped.message == "not yet"
    assert cases[1].system_out == (
        'tool calls: 1\n  1. echo {"m":"x"} -> "x" [ok]\n'
        'final response: "the answer"\ntokens: 0 in, 0 out'
    )
    assert cases[1].system_err == "warning: slow\n"
    assert cases[0].system_err is None


def test_properties_and_host_read_back() -> None:
    """The run's properties, an interrupted run's signal among them, and the host."""
    interrupted = report(
        CaseReport(name="a", source="evals/regression/a.json", grades=(grade("a", True),)),
        interrupted="SIGTERM",
        selection="-k a\nb",
    )
    _, suite, _ = read(to_junit_xml(interrupted, git_commit="abc", hostname="runner-1"))
    assert properties(suite) == {
        "mode": "replay",
        "harness_version": __version__,
        "git_commit": "abc",
        "interrupted": "SIGTERM",
        "selection": "-k a\nb",
    }
    assert suite.hostname == "runner-1"


def test_an_interrupted_run_with_no_case_reads_as_an_empty_suite() -> None:
    """A run stopped before any case finished is still a whole file with zero counts."""
    _, suite, cases = read(to_junit_xml(report(interrupted="SIGINT")))
    assert cases == []
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (0, 0, 0, 0)
    assert properties(suite)["interrupted"] == "SIGINT"


@pytest.mark.parametrize(
    ("names", "read_as"),
    [
        (["dup\x00", "dup\\x00"], ["dup\\x00 [0.json]", "dup\\x00 [1.json]"]),
        (["a\x1b[31m", "a"], ["a [0.json]", "a [1.json]"]),
        (["tab\there", "bell\x07", "rtl\u202eevil"], ["tab\\there", "bell\\x07", "rtl\\u202eevil"]),
        (
            ["x", "x", "x [0.json]"],
            ["x [0.json] [s/0.json]", "x [1.json]", "x [0.json] [s/2.json]"],
        ),
    ],
    ids=["escaped-clash", "ansi-clash", "controls", "clash-with-a-suffix"],
)
def test_names_read_back_cleaned_and_unique(names: list[str], read_as: list[str]) -> None:
    """Control characters are read as visible escapes; clashes as `[file.json]` suffixes."""
    cases = tuple(
        CaseReport(name=name, source=f"s/{index}.json", grades=(grade("a", False),))
        for index, name in enumerate(names)
    )
    _, _, read_back = read(to_junit_xml(report(*cases)))
    assert [case.name for case in read_back] == read_as


def test_huge_bodies_read_back_bounded_with_their_marker() -> None:
    """A huge failure body and huge captured output are cut, each saying how much went."""
    failed = tuple(grade(f"c{index}", False, "d" * 4_000) for index in range(10))
    case = CaseReport(
        name="huge",
        source="evals/regression/h.json",
        grades=failed,
        stdout="o" * (OUTPUT_LIMIT + 5),
        stderr="e" * (OUTPUT_LIMIT + 7),
    )
    _, _, (read_back,) = read(to_junit_xml(report(case)))
    (failure,) = read_back.result
    assert failure.text is not None
    assert failure.text.startswith("✗ c0: ddd")
    assert len(failure.text) < BODY_LIMIT + 40
    assert failure.text.endswith("…[truncated 24069 chars]")
    assert failure.message.endswith("(+9 more)")
    assert read_back.system_out.endswith(f"{'o' * 10}…[truncated 5 chars]")
    assert read_back.system_err == f"{'e' * OUTPUT_LIMIT}…[truncated 7 chars]"


def test_a_carriage_return_reads_back_as_written() -> None:
    """A CRLF the agent printed is read as CRLF, not turned into LF by the parser."""
    case = CaseReport(
        name="crlf", source="evals/regression/a.json", grades=(grade("a", True),), stderr="a\r\nb"
    )
    _, _, (read_back,) = read(to_junit_xml(report(case)))
    assert read_back.system_err == "a\r\nb"


def test_a_run_reads_back_with_file_and_line(
    write_fixture: WriteFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the file `harness run` writes links each failure to its fixture line."""
    trace = echo_trace(model_name="fails", expects={"response_contains": ["hello", "absent"]})
    text = json.dumps(trace, indent=2)
    wanted = next(i for i, line in enumerate(text.splitlines(), 1) if '"absent"' in line)
    write_fixture("b_fails.json", text)
    suite = write_fixture("a_passes.json", echo_trace(model_name="passes")).parent
    write_fixture("c_skipped.json", echo_trace(model_name="skipped", skip="later"))
    monkeypatch.chdir(tmp_path)
    junit = tmp_path / "r.junit.xml"
    assert main(["run", "--suite", str(suite), "--junit", str(junit)]) == 1
    document = junitparser.JUnitXml.fromfile(str(junit))
    (read_suite,) = list(document)
    cases = {case.name: located(case) for case in read_suite}
    assert (read_suite.tests, read_suite.failures, read_suite.skipped) == (3, 1, 1)
    assert {name: case.file for name, case in cases.items()} == {
        "passes": "suite/a_passes.json",
        "fails": "suite/b_fails.json",
        "skipped": "suite/c_skipped.json",
    }
    assert cases["fails"].line == wanted
    assert cases["passes"].line is None
    (failure,) = cases["fails"].result
    assert failure.message.startswith('response_contains("absent"): not found')


def test_the_strict_flavor_reads_back_without_file_and_line() -> None:
    """`strict` carries the same cases and outcomes, without `file` and `line`."""
    _, suite, cases = read(to_junit_xml(every_outcome(), flavor="strict"))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (4, 1, 1, 1)
    assert [(case.file, case.line) for case in cases] == [(None, None)] * 4
    assert cases[1].result[0].message == "b: b missed (+1 more)"

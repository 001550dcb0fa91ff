"""CaseReport, SuiteReport, exit codes and the JSON document."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import jsonschema
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.errors import MergeError
from harness.fixtures.shard import Shard
from harness.grading.result import GradeResult
from harness.messages import RecordedCall
from harness.recording import RunRecord
from harness.reports.document import (
    SCHEMA_VERSION,
    _without_surrogates,
    decode_document,
    from_document,
    to_document,
)
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.writers import JsonWriter, feed, to_json
from harness.version import __version__
from tests.builders import record

REPO = Path(__file__).resolve().parents[2]
OK = GradeResult(check="a", passed=True, detail="found")
BAD = GradeResult(check="b", passed=False, detail="not found")


def suite(*cases: CaseReport) -> SuiteReport:
    return SuiteReport(suite="s", directory="evals/s", mode="replay", cases=cases)


@pytest.mark.parametrize(
    ("grades", "error", "passed"),
    [
        ((OK,), None, True),
        ((OK, BAD), None, False),
        ((OK,), "boom", False),
        ((), None, False),
    ],
    ids=["all-pass", "one-fails", "errored", "no-grades-fails-closed"],
)
def test_case_passes_only_without_error_with_every_grade_passed(
    grades: tuple[GradeResult, ...], error: str | None, passed: bool
) -> None:
    """passed iff no error, at least one grade, and all grades passed."""
    assert CaseReport(name="c", source="c.json", grades=grades, error=error).passed is passed


def test_exit_code_is_zero_only_when_all_passed() -> None:
    """all_passed is a pure function of the verdicts."""
    good = CaseReport(name="g", source="g.json", grades=(OK,))
    bad = CaseReport(name="b", source="b.json", grades=(BAD,))
    errored = CaseReport(name="e", source="e.json", error="x")
    assert suite(good, good).all_passed
    assert not suite(good, bad).all_passed
    assert not suite(good, errored).all_passed
    assert not suite().all_passed


def test_counts() -> None:
    """passed, failed, errored and total add up."""
    report = suite(
        CaseReport(name="g", source="g", grades=(OK,)),
        CaseReport(name="b", source="b", grades=(BAD,)),
        CaseReport(name="e", source="e", error="x"),
    )
    assert (report.passed, report.failed, report.errored, report.total) == (1, 2, 1, 3)
    assert report.all_passed is False


def test_json_document_has_the_fixed_fields_and_additive_ones() -> None:
    """The documented field names are present, plus schema version, tokens and tool calls."""
    run = record("hi", (("echo", '{"message":"hi"}', "hi", True),))
    case = CaseReport(name="c", source="c.json", grades=(OK, BAD), record=run, duration=0.5)
    doc = json.loads(to_json(suite(case), git_commit="abc123"))
    assert {"all_passed", "passed", "failed", "total", "cases"} <= doc.keys()
    assert (doc["all_passed"], doc["passed"], doc["failed"], doc["total"]) == (False, 0, 1, 1)
    assert doc["schema_version"] == SCHEMA_VERSION
    assert doc["harness_version"] == __version__
    assert (doc["suite"], doc["mode"], doc["git_commit"]) == ("s", "replay", "abc123")
    (entry,) = doc["cases"]
    assert {"name", "source", "passed", "error", "grades"} <= entry.keys()
    assert entry["grades"] == [
        {"check": "a", "passed": True, "detail": "found", "category": "response"},
        {"check": "b", "passed": False, "detail": "not found", "category": "response"},
    ]
    assert entry["tool_calls"] == [
        {"name": "echo", "arguments": '{"message":"hi"}', "result": "hi", "success": True}
    ]
    assert entry["duration_s"] == 0.5
    assert entry["final_response"] == "hi"


def test_a_report_read_back_from_its_document_is_the_same_report() -> None:
    """Document to report to document is the identity: requests, calls, errors, tracebacks."""
    calls = (
        RecordedCall(name="echo", arguments='{"message":"hi"}', result="hi", success=True),
        RecordedCall(name="nope", arguments="{}", result="unknown tool: nope", success=False),
    )
    requests = (
        {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}], "tools": []},
        {"model": "gpt-test", "messages": [{"role": "tool", "content": "hi"}], "stream": False},
    )
    wired = CaseReport(
        name="wired",
        source="evals/s/wired.json",
        grades=(OK, BAD),
        record=RunRecord(
            final_response="hi",
            tool_calls=calls,
            input_tokens=12,
            output_tokens=3,
            requests=requests,
        ),
        duration=0.25,
    )
    crashed = CaseReport(
        name="crashed",
        source="evals/s/crashed.json",
        error="ValueError: boom",
        traceback='Traceback (most recent call last):\n  File "agent.py"\nValueError: boom\n',
        record=RunRecord(tool_calls=calls[:1], input_tokens=5, requests=requests[:1]),
        duration=0.125,
    )
    report = SuiteReport(
        suite="s",
        directory="evals/s",
        mode="replay",
        cases=(wired, crashed),
        started_at="2026-01-02T03:04:05.678Z",
        duration=1.5,
        shard=Shard(index=2, total=3),
        suite_total=7,
        interrupted="SIGTERM",
    )
    document = decode_document(to_json(report, git_commit="abc123"), "r.json", MergeError)
    assert document == to_document(report, git_commit="abc123")
    back = from_document(document)
    assert back == report
    assert back.cases[0].record.requests == requests
    assert to_document(back, git_commit="abc123") == document


def test_captured_output_is_in_the_document_only_when_there_is_some() -> None:
    """stdout/stderr round-trip through the document, and an empty capture adds no key."""
    printed = CaseReport(name="p", source="p.json", grades=(OK,), stdout="DEBUG: x\n", stderr="w\n")
    quiet = CaseReport(name="q", source="q.json", grades=(OK,))
    document = json.loads(to_json(suite(printed, quiet)))
    assert (document["cases"][0]["stdout"], document["cases"][0]["stderr"]) == ("DEBUG: x\n", "w\n")
    assert "stdout" not in document["cases"][1]
    assert "stderr" not in document["cases"][1]
    back = from_document(decode_document(to_json(suite(printed, quiet)), "r.json", MergeError))
    assert back.cases == (printed, quiet)


def test_a_report_of_a_newer_schema_version_is_refused() -> None:
    """Fields of a newer document may mean what this harness does not know: not read at all."""
    newer = to_json(suite()).replace(
        f'"schema_version": {SCHEMA_VERSION}'.encode(),
        f'"schema_version": {SCHEMA_VERSION + 1}'.encode(),
    )
    with pytest.raises(MergeError) as caught:
        decode_document(newer, "r.json", MergeError)
    expected = f"r.json: report schema_version {SCHEMA_VERSION + 1} is newer than this harness"
    assert str(caught.value) == expected
    with pytest.raises(MergeError, match=r"^r\.json: not a harness JSON report: "):
        decode_document(b'{"schema_version": 1}', "r.json", MergeError)


def test_lone_surrogates_are_escaped_not_fatal() -> None:
    """A lone surrogate from a custom tool cannot break the JSON report."""
    case = CaseReport(name="c", source="c.json", grades=(OK,), record=record("a\ud800b"))
    doc = json.loads(to_json(suite(case)))
    assert doc["cases"][0]["final_response"] == "a\\ud800b"


def test_real_artifact_validates_against_the_published_schema(tmp_path: Path) -> None:
    """`harness schema report` describes the artifact `harness run --json` writes."""
    from harness._cli.main import main

    artifact = tmp_path / "regression.json"
    assert (
        main(["run", "--suite", str(REPO / "evals" / "regression"), "--json", str(artifact)]) == 0
    )
    schema_file = tmp_path / "schema.json"
    with schema_file.open("w") as out, contextlib.redirect_stdout(out):
        assert main(["schema", "report"]) == 0
    schema = json.loads(schema_file.read_text())
    jsonschema.validate(json.loads(artifact.read_text()), schema)
    broken = json.loads(artifact.read_text())
    del broken["cases"][0]["grades"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


_texts = st.text(alphabet=st.characters(exclude_categories=()), max_size=40)  # surrogates too


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(_texts, max_size=4),
    responses=st.lists(_texts, min_size=4, max_size=4),
    suite_name=_texts,
)
def test_chunked_json_is_the_whole_document_indented(
    names: list[str], responses: list[str], suite_name: str
) -> None:
    """The report written case by case is byte for byte the whole document indented at once."""
    cases = tuple(
        CaseReport(
            name=name,
            source=f"{name}.json",
            grades=(OK, BAD)[: index % 3],
            error="boom\n" if index % 2 else None,
            record=record(responses[index], (("echo", "{}", responses[index], True),)),
        )
        for index, name in enumerate(names)
    )
    report = SuiteReport(suite=suite_name, directory="evals/x", mode="replay", cases=cases)
    try:
        encoded = msgspec.json.encode(to_document(report))
    except UnicodeEncodeError:  # lone surrogates: written as escapes
        encoded = msgspec.json.encode(_without_surrogates(msgspec.to_builtins(to_document(report))))
    assert to_json(report) == msgspec.json.format(encoded, indent=2) + b"\n"
    spooled = JsonWriter(spooled=True)  # a run's: its cases wait in a temp file
    feed((spooled,), report.cases)
    spooled.close(report, None)
    assert b"".join(spooled.pieces()) == to_json(report)
    spooled.discard()

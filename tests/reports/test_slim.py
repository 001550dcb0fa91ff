"""What the writers hold of a finished case: what they print, never the rest."""

from __future__ import annotations

from harness.grading.result import GradeResult
from harness.messages import RecordedCall
from harness.recording import RunRecord
from harness.reports.model import CaseReport
from harness.reports.slim import for_junit, printed

PASSED = GradeResult(check="tools_used(echo)", passed=True, detail="echo was called: long text")
FAILED = GradeResult(check="response_contains('zz')", passed=False, detail="not found in: hi")
CASE = CaseReport(
    name="a",
    source="a.json",
    grades=(PASSED, FAILED),
    traceback="Traceback ...",
    record=RunRecord(
        final_response="hi",
        tool_calls=(RecordedCall(name="echo", arguments="{}", result="hi", success=True),),
        requests=({"model": "m", "messages": ["a large body"]},),
    ),
    case_id="a",
    case_hash="sha256:x",
)


def test_junit_holds_calls_and_labels_but_no_request_body_or_passing_detail() -> None:
    """The JUnit writer keeps what the file prints and the labels lines are found by."""
    held = for_junit(CASE)
    assert held.record.requests == ()
    assert held.traceback is None
    assert held.record.tool_calls == CASE.record.tool_calls
    assert held.record.final_response == "hi"
    assert [(g.check, g.passed, g.detail) for g in held.grades] == [
        ("tools_used(echo)", True, ""),
        ("response_contains('zz')", False, "not found in: hi"),
    ]
    assert held.passed is CASE.passed


def test_the_table_holds_no_record_of_calls_that_all_succeeded() -> None:
    """The table's case keeps its id and hash (baselines), its verdict, and no record."""
    held = printed(CASE)
    assert held.record == RunRecord()
    assert (held.case_id, held.case_hash, held.passed) == ("a", "sha256:x", False)
    assert held.grades[0].check == "tools_used(echo)"
    assert held.grades[0].detail == ""
    assert held.grades[1] is FAILED

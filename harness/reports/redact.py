"""Scrubbing credentials out of what a run recorded, before any report shows it.

Tool results, arguments, responses, error messages and grade details pass through `redact`
on their way into a `CaseReport`, so the table, the JSON and JUnit artifacts, the GitHub job
summary and the history never hold a secret that a tool or agent printed. Grading itself sees
the real run. What is masked is `harness.masking`'s to say: the values of the secrets the
harness holds, and the credential shapes of `harness.credentials` that the privacy lint flags
in fixtures (`api_key=abcd1234` -> `api_key=abcd*[REDACTED]`; `DB_PASSWORD=hunter2` ->
`DB_PASSWORD=*[REDACTED]`). A check's label is scrubbed too, as it may quote a fixture. In a
request body, the string value of a secret-looking key (`"api_key": "…"`) is a secret whatever
it looks like (`credentials.secret_value`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from harness.credentials import MARK, keep, secret_value
from harness.grading.result import GradeResult
from harness.masking import needs_masking, redact
from harness.messages import RecordedCall
from harness.reports.model import CaseReport
from harness.text import truncate

__all__ = ["MARK", "RECORD_LIMIT", "for_report", "published", "redact"]


RECORD_LIMIT = 1_000_000
"""Characters of one recorded text (a response, arguments, a result) kept in reports."""


def for_report(text: str) -> str:
    """`text` bounded to `RECORD_LIMIT` characters (with a visible marker), then redacted."""
    return redact(truncate(text, RECORD_LIMIT))


def published(report: CaseReport) -> CaseReport:
    """The report as every output may show it: texts bounded and credentials redacted.

    Grading has already seen the real run; what leaves the case is scrubbed, once, here.
    """
    record = report.record
    if not record.requests and _clean(_texts(report)):
        return report  # the common case, screened in one pass: nothing to scrub or copy
    calls = tuple(_published_call(call) for call in record.tool_calls)
    grades = tuple(_published_grade(grade) for grade in report.grades)
    response = for_report(record.final_response)
    error = None if report.error is None else for_report(report.error)
    trace = None if report.traceback is None else for_report(report.traceback)
    requests = tuple(_published_json(request) for request in record.requests)
    unchanged = (
        response == record.final_response
        and error == report.error
        and trace == report.traceback
        and requests == record.requests
        and all(new is old for new, old in zip(calls, record.tool_calls, strict=True))
        and all(new is old for new, old in zip(grades, report.grades, strict=True))
    )
    if unchanged:
        return report  # the common case: nothing to scrub, nothing to copy
    record = msgspec.structs.replace(
        record, final_response=response, tool_calls=calls, requests=requests
    )
    return msgspec.structs.replace(
        report, grades=grades, error=error, traceback=trace, record=record
    )


def _texts(report: CaseReport) -> list[str]:
    record = report.record
    texts = [record.final_response, report.error or "", report.traceback or ""]
    texts += (text for grade in report.grades for text in (grade.check, grade.detail))
    for call in record.tool_calls:
        texts += (call.arguments, call.result or "")
    return texts


def _clean(texts: list[str]) -> bool:
    """Whether no text needs bounding or redacting (no trigger spans a newline)."""
    if any(len(text) > RECORD_LIMIT for text in texts):
        return False
    return not needs_masking("\n".join(texts))


def _published_call(call: RecordedCall) -> RecordedCall:
    arguments = for_report(call.arguments)
    result = None if call.result is None else for_report(call.result)
    if arguments == call.arguments and result == call.result:
        return call
    return msgspec.structs.replace(call, arguments=arguments, result=result)


def _published_json(value: Any) -> Any:
    """A request body with every string in it bounded and redacted."""
    if isinstance(value, str):
        return for_report(value)
    if isinstance(value, list):
        return [_published_json(item) for item in value]
    if isinstance(value, dict):
        return {_published_key(key): _published_value(key, item) for key, item in value.items()}
    return value


def _published_key(key: Any) -> Any:
    return for_report(key) if isinstance(key, str) else key


def _published_value(key: Any, item: Any) -> Any:
    if isinstance(item, str) and isinstance(key, str) and secret_value(key, item):
        return keep(truncate(item, RECORD_LIMIT))
    return _published_json(item)


def _published_grade(grade: GradeResult) -> GradeResult:
    check, detail = for_report(grade.check), for_report(grade.detail)
    if check == grade.check and detail == grade.detail:
        return grade
    return msgspec.structs.replace(grade, check=check, detail=detail)

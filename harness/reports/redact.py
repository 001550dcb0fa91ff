"""Scrubbing credentials out of what a run recorded, before any report shows it.

Tool results, arguments, responses, error messages and grade details pass through `redact`
on their way into a `CaseReport`, so the table, the JSON and JUnit artifacts, the GitHub job
summary and the history never hold a secret that a tool or agent printed. Grading itself sees
the real run. What counts as a credential is `harness.credentials`, the same shapes the
privacy lint flags in fixtures. The rule: a credential keeps its first 4 characters, followed
by `*[REDACTED]` (`api_key=abcd1234` -> `api_key=abcd*[REDACTED]`; one shorter than 8
characters keeps none: `DB_PASSWORD=hunter2` -> `DB_PASSWORD=*[REDACTED]`), a cookie header
shows no value, and a PEM or PGP private key block is cut whole, after its BEGIN line. In a
request body, the string value of a secret-looking key (`"api_key": "…"`) is a secret whatever
it looks like (`credentials.secret_value`).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from harness.credentials import (
    MARK,
    is_cut,
    keep,
    keep_cookie,
    keyed_secret,
    might_hold,
    patterns,
    secret_value,
    stands_in,
)
from harness.grading.result import GradeResult
from harness.messages import RecordedCall
from harness.reports.model import CaseReport
from harness.text import truncate

__all__ = ["MARK", "RECORD_LIMIT", "for_report", "published", "redact"]


def redact(text: str) -> str:
    """`text` with every credential it holds cut to its first 4 characters and a mark."""
    if not might_hold(text):
        return text  # the common case: nothing that could be a credential
    compiled = patterns()
    text = compiled.pem.sub(lambda m: f"-----BEGIN {m[1]}-----{MARK}", text)
    text = compiled.shapes.sub(lambda m: keep(m[0]), text)
    text = compiled.header.sub(
        lambda m: m[0] if is_cut(m["value"]) or stands_in(m["value"]) else _cut(m), text
    )
    text = compiled.cookie.sub(
        lambda m: m[0] if MARK in m["value"] else f"{m['key']}{m['sep']}{keep_cookie(m['value'])}",
        text,
    )
    text = compiled.url.sub(lambda m: f"{m[1]}{keep(m[2])}" if MARK not in m[2] else m[0], text)
    text = compiled.keyed.sub(lambda m: _cut(m) if keyed_secret(m) else m[0], text)
    return compiled.scheme.sub(
        lambda m: f"{m[1]}{m[2]}{keep(m[3])}" if MARK not in m[3] else m[0], text
    )


def _cut(match: re.Match[str]) -> str:
    """A keyed or header match with its value cut: `key`, `sep`, `scheme` kept as they were."""
    return f"{match['key']}{match['sep']}{match['scheme']}{keep(match['value'])}"


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
    texts += (grade.detail for grade in report.grades)
    for call in record.tool_calls:
        texts += (call.arguments, call.result or "")
    return texts


def _clean(texts: list[str]) -> bool:
    """Whether no text needs bounding or redacting (no trigger spans a newline)."""
    if any(len(text) > RECORD_LIMIT for text in texts):
        return False
    return not might_hold("\n".join(texts))


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
        return {key: _published_value(key, item) for key, item in value.items()}
    return value


def _published_value(key: Any, item: Any) -> Any:
    if isinstance(item, str) and isinstance(key, str) and secret_value(key, item):
        return keep(truncate(item, RECORD_LIMIT))
    return _published_json(item)


def _published_grade(grade: GradeResult) -> GradeResult:
    detail = for_report(grade.detail)
    return grade if detail == grade.detail else msgspec.structs.replace(grade, detail=detail)

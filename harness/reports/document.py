"""TODO docstring."""

from __future__ import annotations

from typing import Any

import msgspec

from harness.fixtures.shard import Shard
from harness.grading.result import GradeResult
from harness.messages import RecordedCall
from harness.recording import RunRecord
from harness.reports.model import CaseReport, SuiteReport
from harness.text import without_surrogates
from harness.version import __version__

__all__ = [
    "SCHEMA_VERSION",
    "CaseDocument",
    "ReportDocument",
    "json_chunks",
    "to_document",
    "to_json",
]


SCHEMA_VERSION = 1
"""Version of the JSON report document; bumped on any incompatible change."""


class CaseDocument(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One case in the JSON report."""

    name: str
    source: str
    passed: bool
    error: str | None
    grades: tuple[GradeResult, ...]
    duration_s: float
    input_tokens: int
    output_tokens: int
    final_response: str
    tool_calls: tuple[RecordedCall, ...]
    traceback: str | None = None
    requests: tuple[Any, ...] = ()


class ReportDocument(msgspec.Struct, frozen=True, kw_only=True):
    """The JSON report of one suite run."""

    schema_version: int
    harness_version: str
    suite: str
    suite_dir: str
    mode: str
    started_at: str
    duration_s: float
    git_commit: str | None
    all_passed: bool
    passed: int
    failed: int
    errored: int
    total: int
    cases: tuple[CaseDocument, ...]
    shard: Shard | None = None
    suite_total: int | None = None
    interrupted: str | None = None


def to_document(report: SuiteReport, *, git_commit: str | None = None) -> ReportDocument:
    """The JSON document of `report`."""
    return _document(report, git_commit, tuple(_case_document(case) for case in report.cases))


def _document(
    report: SuiteReport, git_commit: str | None, cases: tuple[CaseDocument, ...]
) -> ReportDocument:
    return ReportDocument(
        schema_version=SCHEMA_VERSION,
        harness_version=__version__,
        suite=report.suite,
        suite_dir=report.directory,
        mode=report.mode,
        started_at=report.started_at,
        duration_s=round(report.duration, 6),
        git_commit=git_commit,
        all_passed=report.all_passed,
        passed=report.passed,
        failed=report.failed,
        errored=report.errored,
        total=report.total,
        cases=cases,
        shard=report.shard,
        suite_total=report.suite_total if report.suite_total >= 0 else report.total,
        interrupted=report.interrupted,
    )


def _case_document(case: CaseReport) -> CaseDocument:
    return CaseDocument(
        name=case.name,
        source=case.source,
        passed=case.passed,
        error=case.error,
        grades=case.grades,
        duration_s=round(case.duration, 6),
        input_tokens=case.record.input_tokens,
        output_tokens=case.record.output_tokens,
        final_response=case.record.final_response,
        tool_calls=case.record.tool_calls,
        traceback=case.traceback,
        requests=case.record.requests,
    )


def to_json(report: SuiteReport, *, git_commit: str | None = None) -> bytes:
    """The JSON report, indented, with a trailing newline."""
    return b"".join(json_chunks(report, git_commit=git_commit))


_CASES = b'"cases": []'


def json_chunks(report: SuiteReport, *, git_commit: str | None = None) -> list[bytes]:
    """The JSON report in pieces (the document, then each case, then the rest), joined: `to_json`.

    Each case is encoded and indented alone, so the whole report is never held twice over
    (compact and indented, each in a growing buffer): on a 10k-case run that was ~30 MB.
    The pieces are exactly what indenting the whole document gives.

    A lone surrogate (which a custom tool or agent may produce) cannot be encoded as UTF-8;
    such characters are written as `\\udXXX` escapes rather than failing the report.
    """
    # `"cases": []` can only be the key: inside a JSON string every quote is escaped.
    head, tail = _indented(_document(report, git_commit, ())).split(_CASES, 1)
    if not report.cases:
        return [head + _CASES + tail + b"\n"]
    chunks = [head + b'"cases": [\n    ']
    for case in report.cases:
        chunks.append(_indented(_case_document(case)).replace(b"\n", b"\n    "))
        chunks.append(b",\n    ")
    chunks[-1] = b"\n  ]" + tail + b"\n"
    return chunks


def _indented(document: msgspec.Struct) -> bytes:
    try:
        encoded = msgspec.json.encode(document)
    except UnicodeEncodeError:
        encoded = msgspec.json.encode(_without_surrogates(msgspec.to_builtins(document)))
    return msgspec.json.format(encoded, indent=2)


def _without_surrogates(value: object) -> object:
    return without_surrogates(value)


def _case(case: CaseDocument) -> CaseReport:
    return CaseReport(
        name=case.name,
        source=case.source,
        grades=case.grades,
        error=case.error,
        traceback=case.traceback,
        record=RunRecord(
            final_response=case.final_response,
            tool_calls=case.tool_calls,
            input_tokens=case.input_tokens,
            output_tokens=case.output_tokens,
        ),
        duration=case.duration_s,
    )

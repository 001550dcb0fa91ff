"""The JSON report: its document, the mapping to and from `SuiteReport`, and its bytes.

`to_document` and `from_document` are each other's inverse: a report read back from its
document and written again gives the same document (the harness version aside, which is always
this one's). `harness merge` relies on that to write a merged report equal to the unsharded
run's. `decode_document` is the one reader of the bytes, for `harness merge` and the history.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Annotated, Any

import msgspec

from harness.errors import HarnessError
from harness.fixtures.shard import Shard
from harness.grading.result import GradeResult
from harness.messages import RecordedCall
from harness.recording import RunRecord
from harness.reports.model import CaseReport, SuiteReport, passes
from harness.reports.score import Tally, by_category, score_text, tally
from harness.text import without_surrogates
from harness.version import __version__

__all__ = [
    "SCHEMA_VERSION",
    "CaseDocument",
    "Counts",
    "ReportDocument",
    "case_chunk",
    "case_from_document",
    "case_json",
    "decode_document",
    "from_document",
    "head_document",
    "json_ends",
    "to_document",
]


SCHEMA_VERSION = 1
"""Version of the JSON report document; bumped on any incompatible change."""

Count = Annotated[int, msgspec.Meta(ge=0, le=2**53)]
"""A count read back from a report: exact in JSON everywhere, and in SQLite (2**70 is not)."""
Seconds = Annotated[float, msgspec.Meta(ge=0)]
"""A duration read back from a report."""


class CaseDocument(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One case in the JSON report."""

    name: str
    source: str
    passed: bool
    error: str | None
    grades: tuple[GradeResult, ...]
    duration_s: Seconds
    input_tokens: Count
    output_tokens: Count
    final_response: str
    tool_calls: tuple[RecordedCall, ...]
    traceback: str | None = None
    requests: tuple[Any, ...] = ()
    # What the agent printed, bounded and redacted; left out of the document when empty.
    stdout: str | msgspec.UnsetType = msgspec.UNSET
    stderr: str | msgspec.UnsetType = msgspec.UNSET
    llm_calls: Count = 0
    id: str = ""
    """The case's stable id (the fixture's `id`, else its file name's stem)."""
    case_hash: str = ""
    """`sha256:...` of the fixture's canonical JSON."""
    skipped: str | None = None
    """Why the case was not run, or null."""
    score: str = ""
    """`7/9 checks`: the case's partial score (derived from `grades`, never read back)."""
    checks: Tally = Tally(passed=0, total=0)
    categories: dict[str, Tally] = msgspec.field(default_factory=dict)
    """Checks passed and made, per grade category."""


class ReportDocument(msgspec.Struct, frozen=True, kw_only=True):
    """The JSON report of one suite run."""

    schema_version: Count
    harness_version: str
    suite: str
    suite_dir: str
    mode: str
    started_at: str
    duration_s: Seconds
    git_commit: str | None
    all_passed: bool
    passed: Count
    failed: Count
    errored: Count
    total: Count
    cases: tuple[CaseDocument, ...]
    shard: Shard | None = None
    suite_total: int | None = None
    interrupted: str | None = None
    stopped_early: bool = False
    selection: str | None = None
    tool_surface: str = ""
    """`sha256:...` of the registered tools' names and parameter schemas."""
    skipped: Count = 0
    """Cases not run (their fixtures say `skip`); neither passed nor failed."""
    score: str = ""
    """`61/64 checks`: every case's checks together (derived, never read back)."""
    checks: Tally = Tally(passed=0, total=0)
    categories: dict[str, Tally] = msgspec.field(default_factory=dict)


def to_document(report: SuiteReport, *, git_commit: str | None = None) -> ReportDocument:
    """The JSON document of `report`."""
    return _document(report, git_commit, tuple(_case_document(case) for case in report.cases))


def _document(
    report: SuiteReport,
    git_commit: str | None,
    cases: tuple[CaseDocument, ...],
    counts: Counts | None = None,
) -> ReportDocument:
    if counts is not None:  # counted as the cases finished: they are not read
        passed, errored, total, skipped = (
            counts.passed,
            counts.errored,
            counts.total,
            counts.skipped,
        )
        failed = total - passed - skipped
        all_passed = passes(
            failed=failed,
            total=total,
            shard=report.shard,
            interrupted=report.interrupted,
            skipped=skipped,
        )
        scores: dict[str, Any] = {"score": score_text(counts.checks), "checks": counts.checks}
        scores["categories"] = counts.categories
    else:
        passed, errored, total = report.passed, report.errored, report.total
        failed, all_passed, skipped = report.failed, report.all_passed, report.skipped
        scores = _scores(grade for case in report.cases for grade in case.grades)
    return ReportDocument(
        schema_version=SCHEMA_VERSION,
        harness_version=__version__,
        suite=report.suite,
        suite_dir=report.directory,
        mode=report.mode,
        started_at=report.started_at,
        duration_s=round(report.duration, 6),
        git_commit=git_commit,
        all_passed=all_passed,
        passed=passed,
        failed=failed,
        errored=errored,
        total=total,
        cases=cases,
        shard=report.shard,
        suite_total=report.suite_total if report.suite_total >= 0 else total,
        interrupted=report.interrupted,
        stopped_early=report.stopped_early,
        selection=report.selection,
        tool_surface=report.tool_surface,
        skipped=skipped,
        **scores,
    )


class Counts(msgspec.Struct, frozen=True, kw_only=True):
    """What a writer counted of the cases as they finished (they are not kept)."""

    passed: int
    errored: int
    total: int
    skipped: int = 0
    checks: Tally = Tally(passed=0, total=0)
    categories: dict[str, Tally] = msgspec.field(default_factory=dict)


def _scores(grades: Iterable[GradeResult]) -> dict[str, Any]:
    every = tuple(grades)
    checks = tally(every)
    return {"score": score_text(checks), "checks": checks, "categories": by_category(every)}


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
        stdout=case.stdout or msgspec.UNSET,
        stderr=case.stderr or msgspec.UNSET,
        llm_calls=case.record.llm_calls,
        id=case.case_id,
        case_hash=case.case_hash,
        skipped=case.skipped,
        **_scores(case.grades),
    )


def case_json(case: CaseReport) -> bytes:
    """One case's part of the JSON report, indented, with a trailing newline."""
    return _indented(_case_document(case)) + b"\n"


_CASES = b'"cases": []'

CASES_OPEN, CASES_BETWEEN, CASES_CLOSE = b'"cases": [\n    ', b",\n    ", b"\n  ]"
"""What goes around and between the case pieces (`case_chunk`) of the JSON report."""


def head_document(
    report: SuiteReport, *, git_commit: str | None = None, counts: Counts
) -> ReportDocument:
    """The document of the run `report` describes, without its cases, with these totals.

    Args:
        report: The run; its cases are not read.
        git_commit: The commit under test.
        counts: The cases passed, errored and run, counted as they finished.
    """
    return _document(report, git_commit, (), counts)


def json_ends(head: ReportDocument) -> tuple[bytes, bytes]:
    """The report's JSON up to its `"cases"` key, and after the cases' closing bracket, of
    `head`, a document without its cases (`head_document`)."""
    # `"cases": []` can only be the key: inside a JSON string every quote is escaped.
    start, tail = _indented(head).split(_CASES, 1)
    return start, tail + b"\n"


def case_chunk(case: CaseReport) -> bytes:
    """One case of the JSON report, encoded and indented as its place in the document needs."""
    return _indented(_case_document(case)).replace(b"\n", b"\n    ")


def _indented(document: msgspec.Struct) -> bytes:
    """`document` encoded and indented.

    A lone surrogate (which a custom tool or agent may produce) cannot be encoded as UTF-8;
    such characters are written as `\\udXXX` escapes rather than failing the report.
    """
    try:
        encoded = msgspec.json.encode(document)
    except UnicodeEncodeError:
        encoded = msgspec.json.encode(_without_surrogates(msgspec.to_builtins(document)))
    return msgspec.json.format(encoded, indent=2)


def _without_surrogates(value: object) -> object:
    return without_surrogates(value)


def from_document(document: ReportDocument) -> SuiteReport:
    """The report `document` describes: `to_document`'s inverse.

    The counts and `all_passed` are not read, since a report derives them from its cases. The
    `git_commit` is not part of a report: give it back to `to_document`.
    """
    return SuiteReport(
        suite=document.suite,
        directory=document.suite_dir,
        mode=document.mode,
        cases=tuple(case_from_document(case) for case in document.cases),
        started_at=document.started_at,
        duration=document.duration_s,
        shard=document.shard,
        suite_total=-1 if document.suite_total is None else document.suite_total,
        interrupted=document.interrupted,
        stopped_early=document.stopped_early,
        selection=document.selection,
        tool_surface=document.tool_surface,
    )


def case_from_document(case: CaseDocument) -> CaseReport:
    """The case report `case` describes, everything the document holds included."""
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
            requests=case.requests,
            llm_calls=case.llm_calls,
        ),
        duration=case.duration_s,
        stdout=case.stdout or "",
        stderr=case.stderr or "",
        skipped=case.skipped,
        case_id=case.id,
        case_hash=case.case_hash,
    )


def decode_document(
    data: bytes, path: str, error: Callable[[str, str], HarnessError]
) -> ReportDocument:
    """The report document in `data`, read from `path`.

    A report of a newer `schema_version` is refused rather than half read: its fields may
    mean something this harness does not know.

    Raises:
        HarnessError: `error(path, reason)`, when `data` is not a harness JSON report or one
            this version can read.
    """
    try:
        document = _decoder().decode(data)
    except msgspec.MsgspecError as exc:
        raise error(path, f"not a harness JSON report: {exc}") from None
    except RecursionError:
        raise error(path, "not a harness JSON report: it nests too deep") from None
    if document.schema_version > SCHEMA_VERSION:
        version = document.schema_version
        raise error(path, f"report schema_version {version} is newer than this harness")
    return document


@functools.cache
def _decoder() -> msgspec.json.Decoder[ReportDocument]:
    # Built on first use: `harness run` writes reports but never reads one.
    return msgspec.json.Decoder(ReportDocument)

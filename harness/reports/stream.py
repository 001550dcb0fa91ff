"""A run's reports streamed: each case written as it finishes, the totals once the run ends.

Nothing a run reports is held until the end. Each finished case goes at once into spool
files (temp files, removed when the stream closes): its piece of the JSON report, its JUnit
testcase and its history row. When the run ends, the head that carries the totals is written
and the spooled cases are copied after it, into a temp file that is then renamed into place
(`write_atomic`): memory stays flat in the number of cases, and a reader never sees half a
report. What the table, the GitHub summary and the last-failed cache read of each case (only
what they print: `keep`) is spooled the same way, and read back once the run is over.

The bytes are exactly those of the report rendered whole (`document.json_chunks`,
`junit.to_junit_xml`); the tests hold the two side by side.

The run's verdict is read back from the JSON report as written (`Verdict`), so the exit
status says what the report on disk says.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING

import msgspec

from harness.grading.result import Category, GradeResult
from harness.recording import RunRecord
from harness.reports.artifact import is_in_place, spooling, write_atomic
from harness.reports.document import (
    CASES_BETWEEN,
    CASES_CLOSE,
    CASES_OPEN,
    Counts,
    case_chunk,
    json_ends,
)
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.score import Tally

if TYPE_CHECKING:
    from harness.reports.document import ReportDocument

__all__ = ["JUNIT_BATCH", "ReportStream", "Verdict", "junit_cases", "junit_ends"]

JUNIT_BATCH = 256
"""Finished cases rendered into JUnit together: one document's fixed cost (the XML writer
set up, the suite built) shared by all of them, while memory stays bounded."""

_BLOCK = 1 << 20
_EMPTY_CASES = b'"cases": []'

Row = tuple[str, str, bool, str | None, float, str | None, str | None]
"""One case of the history: name, source, passed, error, duration_s."""


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    """What the JSON report as written says of the run (what the exit status is made from)."""

    all_passed: bool
    total: int
    interrupted: str | None = None


class ReportStream:
    """The spools of one run's reports. Feed it each case (`add`), then `finish`; `close` always.

    Args:
        suite: The suite's name (JUnit's classname).
        json_path: Where the JSON report goes, or None.
        junit_path: Where the JUnit XML goes, or None.
        json: Whether the JSON report is made even with no `json_path` (for stdout or the
            history, which is keyed by its hash).
        history: Whether case rows are spooled for the history.
        keep: Whether to keep, per case, what the table and the GitHub summary print
            (`kept`).
        identity: Whether what is kept holds each case's id and hash (for baselines).
        spool_kept: Whether what is kept waits in a spool file rather than in memory (a
            large run's, read back once its cases are gone).
    """

    def __init__(
        self,
        *,
        suite: str,
        json_path: str | None = None,
        junit_path: str | None = None,
        junit_flavor: str = "full",
        json: bool = False,
        history: bool = False,
        keep: bool = False,
        identity: bool = True,
        spool_kept: bool = False,
    ) -> None:
        self.suite = suite
        self.json_path, self.junit_path = json_path, junit_path
        self.junit_flavor = junit_flavor
        self.passed = self.errored = self.total = self.skipped = 0
        self._categories: dict[str, list[int]] = {}
        self.run_id: str | None = None
        """The SHA-256 of the JSON report, once it is finished."""
        self._keep, self._identity = keep, identity
        self._kept = _spool() if keep and spool_kept else None
        self._held: list[CaseReport] = []
        self._json = _spool() if json or json_path or history else None
        self._junit = _spool() if junit_path else None
        self._rows = _spool() if history else None
        self._json_ends = (b"", b"")
        self._junit_batch: list[CaseReport] = []
        self._junit_ends = (b"", b"")

    def add(self, case: CaseReport) -> None:
        """Spool one finished case into every report asked for (ArtifactError: it cannot be)."""
        with spooling(self.json_path or self.junit_path):
            self._add(case)

    def _add(self, case: CaseReport) -> None:
        passed = case.passed
        if self._json is not None:
            self._json.write(CASES_BETWEEN + case_chunk(case) if self.total else case_chunk(case))
        if self._junit is not None:
            self._junit_batch.append(case)
            if len(self._junit_batch) >= JUNIT_BATCH:
                self._flush_junit()
        if self._rows is not None:
            row = (
                case.name,
                case.source,
                passed,
                case.error,
                round(case.duration, 6),
                case.case_id or None,
                case.case_hash or None,
            )
            self._rows.write(msgspec.json.encode(row) + b"\n")
        if self._keep:
            printed = _printed(case, identity=self._identity)
            if self._kept is None:
                self._held.append(printed)
            else:
                self._kept.write(_encode_kept(printed) + b"\n")
        self.total += 1
        self.passed += passed
        self.errored += case.error is not None
        self.skipped += case.skipped is not None
        for grade in case.grades:
            count = self._categories.setdefault(grade.category, [0, 0])
            count[0] += grade.passed
            count[1] += 1

    def finish(self, report: SuiteReport, git_commit: str | None) -> Verdict:
        """Write the reports of the run `report` describes (its cases are not read).

        Returns:
            The verdict as the JSON report written says it (counted here when none is).

        Raises:
            ArtifactError: A report could not be written.
        """
        counts = self.counts()
        if self._json is not None:
            self._json_ends = json_ends(report, git_commit=git_commit, counts=counts)
            digest = hashlib.sha256()
            pieces = _hashed(self.json_pieces(), digest.update)
            if self.json_path:
                write_atomic(self.json_path, pieces)
            else:
                for _ in pieces:
                    pass
            self.run_id = digest.hexdigest()
        if self._junit is not None and self.junit_path:
            with spooling(self.junit_path):
                self._flush_junit()
            self._junit_ends = junit_ends(report, git_commit, counts, self.junit_flavor)
            write_atomic(self.junit_path, self._pieces(self._junit, *self._junit_ends))
        return self._verdict(report)

    def counts(self) -> Counts:
        """The totals of the cases added so far, as the report's head states them."""
        from harness.grading.result import CATEGORIES

        order: dict[str, int] = {name: index for index, name in enumerate(CATEGORIES)}
        ranked = sorted(self._categories.items(), key=lambda item: order.get(item[0], 99))
        categories = {name: Tally(passed=p, total=t) for name, (p, t) in ranked}
        checks = Tally(
            passed=sum(p for p, _ in self._categories.values()),
            total=sum(t for _, t in self._categories.values()),
        )
        return Counts(
            passed=self.passed,
            errored=self.errored,
            total=self.total,
            skipped=self.skipped,
            checks=checks,
            categories=categories,
        )

    def json_pieces(self) -> Iterator[bytes]:
        """The finished JSON report, in pieces (again from the start at each call)."""
        assert self._json is not None
        head, tail = self._json_ends
        if not self.total:
            return iter((head + _EMPTY_CASES + tail,))
        return self._pieces(self._json, head + CASES_OPEN, CASES_CLOSE + tail)

    def document(self) -> ReportDocument:
        """The JSON report's document without its cases, as written (for the history)."""
        from harness.errors import ArtifactError
        from harness.reports.document import decode_document

        head, tail = self._written_ends()
        return decode_document(head + _EMPTY_CASES + tail, self.json_path or "", ArtifactError)

    def kept(self) -> tuple[CaseReport, ...]:
        """What the table and the summary print of each case added, in order (`keep`).

        Each passing check is one shared stand-in per category, and a record without a
        failed call is one shared empty record: what is read back costs little per case.
        """
        if self._kept is None:
            held, self._held = tuple(self._held), []
            return held
        self._kept.flush()
        self._kept.seek(0)
        return tuple(_shared(_decode_kept(line)) for line in self._kept)

    def rows(self) -> Iterator[Row]:
        """The history rows spooled, in case order."""
        assert self._rows is not None
        decode = msgspec.json.Decoder(Row).decode
        self._rows.flush()
        self._rows.seek(0)
        for line in self._rows:
            yield decode(line)

    def close(self) -> None:
        """Remove the spools (a full disk flushing them is no matter: they are thrown away)."""
        for spool in (self._json, self._junit, self._rows, self._kept):
            if spool is not None:
                with contextlib.suppress(OSError):
                    spool.close()

    def _flush_junit(self) -> None:
        if self._junit is not None and self._junit_batch:
            self._junit.write(junit_cases(self.suite, self._junit_batch, self.junit_flavor))
            self._junit_batch.clear()

    def _verdict(self, report: SuiteReport) -> Verdict:
        if self._json is None:
            from harness.reports.model import passes

            failed = self.total - self.passed - self.skipped
            shard, stopped = report.shard, report.interrupted
            all_passed = passes(
                failed=failed,
                total=self.total,
                shard=shard,
                interrupted=stopped,
                skipped=self.skipped,
            )
            return Verdict(all_passed=all_passed, total=self.total, interrupted=stopped)
        head, tail = self._written_ends()
        return msgspec.json.decode(head + _EMPTY_CASES + tail, type=Verdict)

    def _written_ends(self) -> tuple[bytes, bytes]:
        """The JSON report's head and tail, read back from the file when there is one."""
        head, tail = self._json_ends
        if not self.json_path or is_in_place(self.json_path):
            return head, tail  # a device or a stream (/dev/null, a pipe) is never read back
        with open(self.json_path, "rb") as file:
            start = file.read(len(head))
            file.seek(-len(tail), 2)
            return start, file.read()

    def _pieces(self, spool: IO[bytes], head: bytes, tail: bytes) -> Iterator[bytes]:
        spool.flush()
        spool.seek(0)
        yield head
        while block := spool.read(_BLOCK):
            yield block
        yield tail


def _spool() -> IO[bytes]:
    import tempfile

    return tempfile.TemporaryFile()


def _hashed(pieces: Iterator[bytes], update: Callable[[bytes], object]) -> Iterator[bytes]:
    for piece in pieces:
        update(piece)
        yield piece


def _printed(case: CaseReport, *, identity: bool = True) -> CaseReport:
    """What the table and the GitHub summary print of `case`: no passing check's text, and no
    record unless a call failed (the table names calls to a tool the registry lacks); its id
    and hash only with `identity` (baselines pair cases by them)."""
    grades = _slim(case.grades)
    record = _NO_RECORD
    if not all(call.success for call in case.record.tool_calls):
        record = RunRecord(tool_calls=case.record.tool_calls)
    return CaseReport(
        name=case.name,
        source=case.source,
        grades=grades,
        error=case.error,
        record=record,
        skipped=case.skipped,
        case_id=case.case_id if identity else "",
        case_hash=case.case_hash if identity else "",
    )


_NO_RECORD = RunRecord()
_encode_kept = msgspec.json.Encoder().encode
_decode_kept = msgspec.json.Decoder(CaseReport).decode


def _shared(case: CaseReport) -> CaseReport:
    """`case` as read back, its passing checks and empty record the shared ones."""
    record = case.record if case.record.tool_calls else _NO_RECORD
    return msgspec.structs.replace(case, grades=_slim(case.grades), record=record)


def _slim(grades: tuple[GradeResult, ...]) -> tuple[GradeResult, ...]:
    """`grades` with each passing check the shared stand-in of its category (and, when all
    passed, the one shared tuple of them)."""
    if all(grade.passed for grade in grades):
        return _passed_all(tuple(grade.category for grade in grades))
    return tuple(grade if not grade.passed else _passed(grade.category) for grade in grades)


@functools.cache
def _passed_all(categories: tuple[Category, ...]) -> tuple[GradeResult, ...]:
    """The grades of a case whose every check passed, one shared tuple per category list."""
    return tuple(_passed(category) for category in categories)


@functools.cache
def _passed(category: Category) -> GradeResult:
    """Stands in for each passing check of a kept case, one shared per category."""
    return GradeResult(check="", passed=True, detail="", category=category)


def junit_cases(suite: str, cases: Sequence[CaseReport], flavor: str = "full") -> bytes:
    """The `<testcase>` elements of the JUnit report for `cases`, indented for their place.

    Cut out of the document of these cases alone, so they are byte for byte what the whole
    document holds. (The one place a per-case JUnit writer plugs in.)
    """
    from harness.reports.junit import to_junit_xml

    alone = SuiteReport(suite=suite, directory="", mode="", cases=tuple(cases))
    document = to_junit_xml(alone, flavor=flavor)
    start = document.index(_PROPERTIES_END) + len(_PROPERTIES_END)
    return document[start : document.rindex(_SUITE_END)]


_PROPERTIES_END, _SUITE_END = b"</properties>\n", b"  </testsuite>"


def junit_ends(
    report: SuiteReport,
    git_commit: str | None,
    counts: Counts,
    flavor: str = "full",
) -> tuple[bytes, bytes]:
    """The JUnit report up to its first testcase, and after its last, with these totals."""
    import re

    from harness.reports.junit import to_junit_xml

    passed, errored, total, skipped = counts.passed, counts.errored, counts.total, counts.skipped
    empty = to_junit_xml(
        msgspec.structs.replace(report, cases=()), git_commit=git_commit, flavor=flavor
    )
    cut = empty.index(_PROPERTIES_END) + len(_PROPERTIES_END)
    head, tail = empty[:cut], empty[cut:]
    values = {
        b"tests": total,
        b"failures": total - passed - errored - skipped,
        b"errors": errored,
        b"skipped": skipped,
    }
    # Only the two opening tags hold these attributes; a value inside a name is escaped.
    opening = head.index(b"<properties>")

    def count(match: re.Match[bytes]) -> bytes:
        return b' %s="%d"' % (match[1], values[match[1]])

    head = re.sub(rb' (tests|failures|errors|skipped)="0"', count, head[:opening]) + head[opening:]
    return head, tail

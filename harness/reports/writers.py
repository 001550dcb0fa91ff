"""One writer per report format, fed case by case: a run's as each case finishes, a whole
report's (`harness merge`, `to_json`) from its list.

Each writer is made with what it writes to, takes each finished case (`add`), and is closed
with the run's head: the report without its cases, which says how the run went (`close`).
What a writer can only write once every case is in (the JUnit file, whose names are told apart
across the whole run; the table, whose columns fit every row) it holds slimmed (`slim`), and
renders once, whole; the JSON report's cases go to a spool file as they come, and its head,
whose totals are counted as they come (`CaseCounts`), goes before them at the close.

The GitHub summary's writer is in `github`, the history's in `harness.history.writer`.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Protocol

import msgspec

from harness.reports.artifact import spooling, write_atomic
from harness.reports.document import (
    CASES_BETWEEN,
    CASES_CLOSE,
    CASES_OPEN,
    Counts,
    ReportDocument,
    case_chunk,
    head_document,
    json_ends,
)
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.score import Tally
from harness.reports.slim import for_junit, printed

if TYPE_CHECKING:
    from harness.reports.baseline import CaseFlip
    from harness.reports.recap import Paint

__all__ = ["CaseCounts", "JsonWriter", "JunitWriter", "TableWriter", "Writer", "feed", "to_json"]

_BLOCK = 1 << 20
_SPOOL_BUFFER = 1 << 16
_EMPTY_CASES = b'"cases": []'


class Writer(Protocol):
    """What a run feeds each finished case to."""

    def add(self, case: CaseReport) -> object:
        """Take one finished case."""


def feed(writers: Iterable[Writer], cases: Iterable[CaseReport]) -> None:
    """Give every case, in order, to every writer (a whole report's list)."""
    every = tuple(writers)
    for case in cases:
        for writer in every:
            writer.add(case)


class CaseCounts:
    """The totals of the cases added so far, as a report's head states them."""

    def __init__(self) -> None:
        self.passed = self.errored = self.total = self.skipped = 0
        self._categories: dict[str, list[int]] = {}

    def add(self, case: CaseReport) -> None:
        """Count one finished case."""
        self.total += 1
        self.passed += case.passed
        self.errored += case.error is not None
        self.skipped += case.skipped is not None
        for grade in case.grades:
            count = self._categories.setdefault(grade.category, [0, 0])
            count[0] += grade.passed
            count[1] += 1

    def counts(self) -> Counts:
        """What was counted, categories in their fixed order."""
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


class JsonWriter:
    """The JSON report: each case's piece spooled as it comes, the head written at the close.

    Args:
        path: Where the report goes (None: only `pieces`, for stdout, the HTML page or the
            history).
        spooled: Whether the cases wait in a temp file (a run's) rather than in memory.
    """

    def __init__(self, path: str | None = None, *, spooled: bool = False) -> None:
        self.path = path
        self.counts = CaseCounts()
        self.run_id: str | None = None
        """The SHA-256 of the report, once closed (a history run's id)."""
        self._spool: IO[bytes] | None = _spool() if spooled else None
        self._held: list[bytes] = []
        self._ends = (b"", b"")
        self._head: ReportDocument | None = None

    def add(self, case: CaseReport) -> None:
        """Spool one finished case's piece (ArtifactError: it cannot be)."""
        piece = case_chunk(case) if not self.counts.total else CASES_BETWEEN + case_chunk(case)
        if self._spool is None:
            self._held.append(piece)
        else:
            try:
                self._spool.write(piece)
            except OSError:
                with spooling(self.path):  # the one place that words it as an ArtifactError
                    raise
        self.counts.add(case)

    def close(self, head: SuiteReport, git_commit: str | None) -> None:
        """Finish the report of the run `head` describes (its cases are not read), and write
        it to `path`.

        Raises:
            ArtifactError: It could not be written.
        """
        counts = self.counts.counts()
        self._head = head_document(head, git_commit=git_commit, counts=counts)
        self._ends = json_ends(self._head)
        digest = hashlib.sha256()
        pieces = _hashed(self.pieces(), digest)
        if self.path:
            write_atomic(self.path, pieces)
        else:
            for _ in pieces:
                pass
        self.run_id = digest.hexdigest()

    def pieces(self) -> Iterator[bytes]:
        """The closed report, in pieces (again from the start at each call)."""
        head, tail = self._ends
        if not self.counts.total:
            yield head + _EMPTY_CASES + tail
            return
        yield head + CASES_OPEN
        if self._spool is None:
            yield from self._held
        else:
            with spooling(self.path):
                self._spool.flush()
                self._spool.seek(0)
                while block := self._spool.read(_BLOCK):
                    yield block
        yield CASES_CLOSE + tail

    def document(self) -> ReportDocument:
        """The closed report's document without its cases (what the history records)."""
        assert self._head is not None, "close the writer first"
        return self._head

    def discard(self) -> None:
        """Remove the spool (a full disk flushing it is no matter: it is thrown away)."""
        self._held.clear()
        if self._spool is not None:
            with contextlib.suppress(OSError):
                self._spool.close()


class JunitWriter:
    """The JUnit XML file: each case held slimmed, the document made whole at the close, so
    names that clash only after cleaning are told apart across the whole run.

    Args:
        path: Where the file goes (None: only returned by `close`).
        flavor: `full` or `strict` (`harness.reports.junit.FLAVORS`).
    """

    def __init__(self, path: str | None = None, *, flavor: str = "full") -> None:
        self.path, self.flavor = path, flavor
        self._held: list[CaseReport] = []

    def add(self, case: CaseReport) -> None:
        """Hold what the file reads of one finished case."""
        self._held.append(for_junit(case))

    def close(
        self,
        head: SuiteReport,
        git_commit: str | None,
        *,
        hostname: str | None = None,
        flips: Sequence[CaseFlip] | None = None,
    ) -> bytes:
        """The document of the run `head` describes, written to `path`; with a baseline's
        `flips` (one per case, in order), each flipped case is marked.

        Raises:
            ArtifactError: It could not be written.
        """
        from harness.reports.junit import to_junit_xml

        marks = None
        if flips is not None:
            from harness.reports.baseline import junit_marks  # deferred: only with a baseline

            marks = junit_marks(flips)
        cases, self._held = tuple(self._held), []
        report = msgspec.structs.replace(head, cases=cases)
        data = to_junit_xml(
            report, git_commit=git_commit, flavor=self.flavor, hostname=hostname, marks=marks
        )
        del cases, report
        if self.path:
            write_atomic(self.path, data)
        return data


class TableWriter:
    """The table, and what else reads the run's verdicts once it is over (the baseline, the
    last-failed cache): each case held slimmed (`slim.printed`), laid out at the close."""

    def __init__(self) -> None:
        self._held: list[CaseReport] = []

    def add(self, case: CaseReport) -> None:
        """Hold what the table prints of one finished case."""
        self._held.append(printed(case))

    def report(self, head: SuiteReport) -> SuiteReport:
        """The run `head` describes, with the cases held."""
        return msgspec.structs.replace(head, cases=tuple(self._held))

    def close(
        self,
        head: SuiteReport,
        paint: Paint | None = None,
        marks: Sequence[str] | None = None,
    ) -> Iterator[str]:
        """The table's lines (colored by `paint`, with a `baseline` column of `marks`)."""
        from harness.reports.table import table_lines

        return table_lines(self.report(head), paint, marks)


def to_json(report: SuiteReport, *, git_commit: str | None = None) -> bytes:
    """The JSON report of `report`, indented, with a trailing newline."""
    writer = JsonWriter()
    feed((writer,), report.cases)
    writer.close(report, git_commit)
    return b"".join(writer.pieces())


def _spool() -> IO[bytes]:
    import tempfile

    # A large buffer: each case's piece is small, and the spool is read back only at the close.
    return tempfile.TemporaryFile(buffering=_SPOOL_BUFFER)


def _hashed(pieces: Iterator[bytes], digest: hashlib._Hash) -> Iterator[bytes]:
    for piece in pieces:
        digest.update(piece)
        yield piece

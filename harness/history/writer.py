"""The history's writer: one row per finished case, spooled; the run recorded at the close."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import IO

import msgspec

from harness.history.store import CaseValues, History
from harness.reports.artifact import spooling
from harness.reports.document import ReportDocument
from harness.reports.model import CaseReport

__all__ = ["HistoryWriter", "case_values"]

_encode = msgspec.json.Encoder().encode


def case_values(case: CaseReport) -> CaseValues:
    """`case`'s row, as the JSON report holds it (its error already redacted)."""
    return (
        case.name,
        case.source,
        case.passed,
        case.error,
        round(case.duration, 6),
        case.case_id or None,
        case.case_hash or None,
    )


class HistoryWriter:
    """The run's rows for the history at `path`, each spooled as its case finishes (a large
    run's rows are never held), recorded in one transaction at the close."""

    def __init__(self, path: str) -> None:
        """Open the history, when it exists, so that one that cannot be opened is found
        before the run (a new one is made when the run is recorded).

        Raises:
            HistoryError: It cannot be opened.
        """
        if os.path.lexists(path):
            with History(path):
                pass
        self.path = path
        self._spool: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (`discard` closes it)

    def add(self, case: CaseReport) -> None:
        """Spool one finished case's row (ArtifactError: it cannot be)."""
        with spooling(None):
            self._spool.write(_encode(case_values(case)) + b"\n")

    def close(self, run_id: str, document: ReportDocument) -> bool:
        """Record the run: `document` is its JSON report without cases, `run_id` that
        report's SHA-256. False when it was already recorded.

        Raises:
            HistoryError: It could not be recorded.
        """
        try:
            with History(self.path) as store:
                return store.record_run(run_id, document, self._rows())
        finally:
            self.discard()

    def discard(self) -> None:
        """Remove the spool."""
        with contextlib.suppress(OSError):
            self._spool.close()

    def _rows(self) -> Iterator[CaseValues]:
        decode = msgspec.json.Decoder(CaseValues).decode
        with spooling(None):
            self._spool.flush()
            self._spool.seek(0)
            for line in self._spool:
                yield decode(line)

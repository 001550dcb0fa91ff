"""The run history: one SQLite file with a row per run and a row per case result.

SQLite (the standard library's `sqlite3`) in WAL mode: each run is recorded in one
`BEGIN IMMEDIATE` transaction, so two writers queue instead of corrupting the file, and a run
killed mid-write leaves the history as it was. The schema version lives in
`PRAGMA user_version`, and older files are migrated when opened.

A run's id is the SHA-256 of its JSON artifact, so recording a run and later importing its
artifact (or importing the same artifact twice) adds nothing.

Errors name their real cause: a full disk or a file-size limit, a history path that is not a
file, a table missing from the file, a row whose values have the wrong types. A failed
statement's own error is reported, never the rollback's after it; a transaction that committed
is never reported as failed (a signal right after the commit stops the command, as a signal
does, but the run is recorded).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, TypeVar

import msgspec

from harness.errors import HistoryError
from harness.fixtures.duplicates import duplicate_key
from harness.history.failures import DAMAGE, cause, check_is_file, wrong_type
from harness.masking import redact
from harness.reports.document import ReportDocument, decode_document

__all__ = ["CaseRow", "CaseValues", "History", "RunRow", "run_id_of"]

BUSY_TIMEOUT_S = 30.0
"""How long a writer waits for another writer's transaction before giving up."""

MIGRATIONS: tuple[str, ...] = (
    # version 1
    """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        suite TEXT NOT NULL,
        mode TEXT NOT NULL,
        started_at TEXT NOT NULL,
        git_commit TEXT,
        harness_version TEXT NOT NULL,
        passed INTEGER NOT NULL,
        total INTEGER NOT NULL,
        duration_s REAL NOT NULL,
        recorded_at TEXT NOT NULL
    );
    CREATE INDEX runs_by_suite ON runs (suite, started_at);
    CREATE TABLE case_results (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        source TEXT NOT NULL,
        passed INTEGER NOT NULL,
        error TEXT,
        duration_s REAL NOT NULL,
        PRIMARY KEY (run_id, name)
    );
    """,
    # version 2: the run's tool surface and each case's stable id and fixture hash
    """
    ALTER TABLE runs ADD COLUMN tool_surface TEXT;
    ALTER TABLE case_results ADD COLUMN case_id TEXT;
    ALTER TABLE case_results ADD COLUMN case_hash TEXT;
    """,
)
"""Schema migrations: entry i brings a file from version i to version i + 1."""

TABLES = {
    "runs": (
        "run_id suite mode started_at git_commit harness_version passed total duration_s"
        " recorded_at tool_surface"
    ),
    "case_results": "run_id name source passed error duration_s case_id case_hash",
}
"""The tables of the current schema and their columns, checked whenever a history is opened."""

Row = TypeVar("Row")
CaseValues = tuple[str, str, bool, str | None, float, str | None, str | None]
"""One case's row as recorded (`case_results` without its run id): name, source, passed,
error, duration_s, id, case_hash. The one row type: a run's writer spools it, an imported
artifact's cases give it."""


class RunRow(msgspec.Struct, frozen=True, array_like=True):
    """One recorded run."""

    run_id: str
    suite: str
    mode: str
    started_at: str
    git_commit: str | None
    harness_version: str
    passed: int
    total: int
    duration_s: float


class CaseRow(msgspec.Struct, frozen=True, array_like=True):
    """One case's result in one recorded run."""

    run_id: str
    name: str
    source: str
    passed: bool
    error: str | None
    duration_s: float


def run_id_of(artifact: bytes) -> str:
    """The id of a run: the SHA-256 of its JSON artifact."""
    return hashlib.sha256(artifact).hexdigest()


class History:
    """An open history file. Use as a context manager."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            check_is_file(path)
            folder = os.path.dirname(os.path.abspath(path))
            os.makedirs(folder, exist_ok=True)
            self._db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except DAMAGE as exc:
            raise HistoryError(path, f"cannot open the history: {cause(exc, path)}") from None
        except OSError as exc:
            raise HistoryError(path, f"cannot open the history: {exc.strerror or exc}") from None
        try:
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
            self._check_tables()
        except DAMAGE as exc:
            self._db.close()
            raise HistoryError(path, f"cannot open the history: {cause(exc, path)}") from None
        except BaseException:
            self._db.close()
            raise

    def __enter__(self) -> History:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with contextlib.suppress(sqlite3.Error):  # what was committed stays committed
            self._db.close()

    def _migrate(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise HistoryError(
                    self.path, f"schema version {version} is newer than this harness knows"
                )
            for target, script in enumerate(MIGRATIONS[version:], version + 1):
                for statement in filter(str.strip, script.split(";")):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {target}")
            self._db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        """Undo the open transaction, if any is still open, keeping the error that led here.

        SQLite ends a transaction on its own after some errors (a full disk, an I/O error),
        and a signal may land after the COMMIT: then there is nothing to roll back.
        """
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")

    def _check_tables(self) -> None:
        """Refuse a file whose tables are not the schema's (a table dropped, columns renamed)."""
        for table, columns in TABLES.items():
            found = [row[1] for row in self._db.execute(f"PRAGMA table_info({table})")]
            if not found:
                raise HistoryError(
                    self.path, f"is not a usable history: its table {table!r} is missing"
                )
            if found != columns.split():
                raise HistoryError(
                    self.path,
                    f"is not a usable history: table {table!r} has columns {', '.join(found)}",
                )

    def check_artifact(self, artifact: bytes, source: str | None = None) -> ReportDocument:
        """The report a JSON artifact holds.

        Raises:
            HistoryError: The artifact is not a harness JSON report this version can read, or
                writes a key twice (a decoder keeps only the last: an edited verdict).
        """
        document = decode_document(artifact, source or self.path, HistoryError)
        repeat = duplicate_key(artifact, document)
        if repeat is not None:
            raise HistoryError(source or self.path, f"{repeat[0]}: {repeat[1]}")
        return document

    def record_artifact(self, artifact: bytes, source: str | None = None) -> bool:
        """Record the run a JSON artifact describes; False when it was already recorded.

        Raises:
            HistoryError: The artifact is not a harness JSON report, or the write failed.
        """
        return self._insert(run_id_of(artifact), self.check_artifact(artifact, source))

    def record_run(
        self,
        run_id: str,
        document: ReportDocument,
        rows: Iterable[CaseValues],
    ) -> bool:
        """Record a run written case by case: its document without cases, and one row per
        case as the JSON artifact holds it; `run_id` is the artifact's SHA-256. False when it
        was already recorded.

        Raises:
            HistoryError: The write failed.
        """
        return self._insert(run_id, document, rows)

    def _insert(
        self,
        run_id: str,
        document: ReportDocument,
        rows: Iterable[CaseValues] | None = None,
    ) -> bool:
        recorded_at = datetime.now(UTC).isoformat(timespec="seconds")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        run_id,
                        document.suite,
                        document.mode,
                        document.started_at,
                        document.git_commit,
                        document.harness_version,
                        document.passed,
                        document.total,
                        document.duration_s,
                        recorded_at,
                        document.tool_surface or None,
                    ),
                )
                added = cursor.rowcount == 1
                if added:
                    if rows is None:
                        rows = (
                            (
                                c.name,
                                c.source,
                                c.passed,
                                None if c.error is None else redact(c.error),
                                c.duration_s,
                                c.id or None,
                                c.case_hash or None,
                            )
                            for c in document.cases
                        )
                    self._db.executemany(
                        "INSERT INTO case_results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        ((run_id, *row) for row in rows),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        except DAMAGE as exc:
            raise HistoryError(
                self.path, f"cannot record the run: {cause(exc, self.path)}"
            ) from None
        return added

    def suites(self) -> list[str]:
        """The suites with recorded runs, most recently run first."""
        rows = self._query(
            "SELECT suite FROM runs GROUP BY suite ORDER BY max(started_at) DESC, suite", ()
        )
        return [suite for (suite,) in self._rows("runs", ("suite",), rows, tuple[str])]

    def runs(self, suite: str, last: int | None = None) -> list[RunRow]:
        """The runs of `suite`, oldest first; only the `last` most recent when given."""
        rows = self._query(
            "SELECT run_id, suite, mode, started_at, git_commit, harness_version, passed, total,"
            " duration_s FROM runs WHERE suite = ? ORDER BY started_at DESC, rowid DESC"
            " LIMIT ?",
            (suite, -1 if last is None else last),
        )
        return self._rows("runs", RunRow.__struct_fields__, rows[::-1], RunRow)

    def run_count(self, suite: str) -> int:
        """How many runs of `suite` are recorded."""
        return int(self._query("SELECT count(*) FROM runs WHERE suite = ?", (suite,))[0][0])

    def case_results(self, run_ids: Sequence[str]) -> list[CaseRow]:
        """Every case result of the given runs."""
        marks = ", ".join("?" * len(run_ids))
        rows = self._query(
            "SELECT run_id, name, source, passed, error, duration_s FROM case_results"
            f" WHERE run_id IN ({marks}) ORDER BY name",
            tuple(run_ids),
        )
        return self._rows("case_results", CaseRow.__struct_fields__, rows, CaseRow)

    def _query(self, sql: str, parameters: Iterable[object]) -> list[tuple[Any, ...]]:
        try:
            rows: list[tuple[Any, ...]] = self._db.execute(sql, tuple(parameters)).fetchall()
            return rows
        except DAMAGE as exc:
            raise HistoryError(
                self.path, f"cannot read the history: {cause(exc, self.path)}"
            ) from None

    def _rows(
        self,
        table: str,
        columns: Sequence[str],
        rows: list[tuple[Any, ...]],
        row_type: type[Row],
    ) -> list[Row]:
        """`rows` as `row_type`; a row whose values have the wrong types is named, in one line."""
        try:
            return msgspec.convert(rows, list[row_type], strict=False)  # type: ignore[valid-type]
        except msgspec.ValidationError:
            pass  # find the row and the column, to name them
        for number, row in enumerate(rows, 1):
            try:
                msgspec.convert(row, row_type, strict=False)
            except msgspec.ValidationError as exc:
                raise HistoryError(
                    self.path, wrong_type(table, columns, number, row, exc)
                ) from None
        raise HistoryError(self.path, f"table {table!r} holds values of the wrong types")

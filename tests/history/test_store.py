"""The SQLite run history: recording, idempotent import, migration and concurrent writers."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.errors import HistoryError
from harness.grading.result import GradeResult
from harness.history.store import MIGRATIONS, History, run_id_of
from harness.reports.document import SCHEMA_VERSION
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.writers import to_json


def artifact(
    suite: str = "capability", passing: bool = True, started: str = "2026-01-01T00:00:00Z"
) -> bytes:
    grades = (GradeResult(check="c", passed=passing, detail="d"),)
    report = SuiteReport(
        suite=suite,
        directory=f"evals/{suite}",
        mode="replay",
        started_at=started,
        cases=(
            CaseReport(
                name="steady",
                source="a.json",
                grades=(GradeResult(check="c", passed=True, detail="d"),),
            ),
            CaseReport(name="moving", source="b.json", grades=grades),
            CaseReport(name="broken", source="c.json", error="boom"),
        ),
    )
    return to_json(report, git_commit="abc")


def test_a_run_is_one_row_and_its_cases_one_row_each(tmp_path: Path) -> None:
    """Suite, mode, start, commit, version, counts; name, source, passed, error, duration."""
    with History(str(tmp_path / "h.sqlite")) as history:
        assert history.record_artifact(artifact()) is True
        (run,) = history.runs("capability")
        assert (run.suite, run.mode, run.git_commit, run.passed, run.total) == (
            "capability",
            "replay",
            "abc",
            2,
            3,
        )
        assert run.run_id == run_id_of(artifact())
        cases = {c.name: c for c in history.case_results([run.run_id])}
        assert cases["broken"].error == "boom"
        assert cases["broken"].passed is False
        assert cases["moving"].passed is True
        assert cases["moving"].source == "b.json"


def test_recording_the_same_artifact_twice_adds_nothing(tmp_path: Path) -> None:
    """The run id is the artifact's hash, so a re-import is a no-op."""
    with History(str(tmp_path / "h.sqlite")) as history:
        assert history.record_artifact(artifact())
        assert not history.record_artifact(artifact())
        assert len(history.runs("capability")) == 1


def test_runs_are_oldest_first_and_last_keeps_the_newest(tmp_path: Path) -> None:
    """--last N keeps the N most recent runs, still oldest first."""
    with History(str(tmp_path / "h.sqlite")) as history:
        for day in (3, 1, 2):
            history.record_artifact(artifact(started=f"2026-01-0{day}T00:00:00Z"))
        assert [r.started_at[:10] for r in history.runs("capability")] == [
            "2026-01-01",
            "2026-01-02",
            "2026-01-03",
        ]
        assert [r.started_at[:10] for r in history.runs("capability", 2)] == [
            "2026-01-02",
            "2026-01-03",
        ]
        history.record_artifact(artifact(suite="regression"))
        assert set(history.suites()) == {"capability", "regression"}


def test_schema_is_versioned_and_migrated_on_open(tmp_path: Path) -> None:
    """A new file gets every migration; a newer file than we know is refused."""
    path = tmp_path / "h.sqlite"
    History(str(path)).__exit__(None, None, None)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(HistoryError, match="newer than this harness knows"):
        History(str(path))


def test_not_a_report_is_refused_with_the_file_named(tmp_path: Path) -> None:
    """An artifact that is not a harness JSON report names itself."""
    with History(str(tmp_path / "h.sqlite")) as history, pytest.raises(HistoryError) as caught:
        history.record_artifact(b'{"hello": 1}', "x.json")
    assert str(caught.value).startswith("x.json: not a harness JSON report")


def test_an_artifact_of_a_newer_schema_version_is_refused(tmp_path: Path) -> None:
    """A report this harness cannot fully read is not recorded: one line naming it."""
    newer = artifact().replace(
        f'"schema_version": {SCHEMA_VERSION}'.encode(),
        f'"schema_version": {SCHEMA_VERSION + 1}'.encode(),
    )
    with History(str(tmp_path / "h.sqlite")) as history:
        with pytest.raises(HistoryError) as caught:
            history.record_artifact(newer, "x.json")
        assert history.suites() == []
    version = SCHEMA_VERSION + 1
    assert (
        str(caught.value) == f"x.json: report schema_version {version} is newer than this harness"
    )


def test_a_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    """A file that is not SQLite gives a HistoryError, not a traceback."""
    path = tmp_path / "h.sqlite"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(HistoryError, match="cannot open the history"):
        History(str(path))


def test_a_history_with_flipped_bits_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema whose bytes are no longer UTF-8 (nor is SQLite's error text) is one line
    naming the file, not a UnicodeDecodeError traceback."""
    from harness._cli.main import main

    path = tmp_path / "h.sqlite"
    with History(str(path)) as history:
        history.record_artifact(artifact())
    data = path.read_bytes()
    path.write_bytes(data.replace(b"CREATE TABLE runs", b"CREATE \xff\xfeBLE runs", 1))
    assert main(["trend", "--history", str(path)]) == 2
    err = capsys.readouterr().err
    damaged = "the file is damaged (SQLite read text that is not UTF-8)"
    assert err == f"harness: {path}: cannot open the history: {damaged}\n"


def test_a_history_that_cannot_be_opened_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found before any case runs: exit 2, one line, and no report written (not a green run's
    reports followed by a 2)."""
    from harness._cli.main import main
    from tests.builders import echo_trace

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "green.json").write_text(json.dumps(echo_trace(model_name="green")))
    history = tmp_path / "h.sqlite"
    history.write_text("not a database, but a file of text that is long enough to be read\n" * 8)
    report = tmp_path / "report.json"
    argv = ["run", "--suite", str(suite), "--json", str(report), "--history", str(history)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: {history}: cannot open the history: ")
    assert err.count("\n") == 1
    assert not report.exists()


WRITER = """
import sys
from harness.history.store import History
from tests.history.test_store import artifact
with History(sys.argv[1]) as history:
    for n in range(25):
        history.record_artifact(artifact(started=f"2026-01-01T00:{sys.argv[2]}:{n:02d}Z"))
"""


def test_two_writers_at_once_keep_the_history_consistent(tmp_path: Path) -> None:
    """Concurrent processes each record all their runs; nothing is lost or torn."""
    path = str(tmp_path / "h.sqlite")
    History(path).__exit__(None, None, None)
    root = Path(__file__).resolve().parents[2]
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, path, minute], cwd=root)
        for minute in ("10", "20")
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    with History(path) as history:
        runs = history.runs("capability")
        assert len(runs) == 50
        assert len(history.case_results([run.run_id for run in runs])) == 150
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


class CommitThenStop:
    """A connection that delivers Ctrl-C right after its COMMIT went through."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    @property
    def in_transaction(self) -> bool:
        return self.db.in_transaction

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        cursor = self.db.execute(sql, *args)
        if sql == "COMMIT":
            raise KeyboardInterrupt
        return cursor

    def executemany(self, sql: str, rows: object) -> sqlite3.Cursor:
        return self.db.executemany(sql, rows)  # type: ignore[arg-type]

    def close(self) -> None:
        self.db.close()


def test_a_signal_right_after_the_commit_stops_but_the_run_is_recorded(tmp_path: Path) -> None:
    """No "cannot rollback" error, no claim that recording failed: the stop, and the run kept."""
    path = str(tmp_path / "h.sqlite")
    with History(path) as history:
        history._db = CommitThenStop(history._db)  # type: ignore[assignment]
        with pytest.raises(KeyboardInterrupt):
            history.record_artifact(artifact())
    with History(path) as history:
        assert len(history.runs("capability")) == 1


def full_at(pages: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every new connection may grow its file to `pages` pages only: SQLite's "disk full"."""
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db: sqlite3.Connection = real(*args, **kwargs)
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)


def big_artifact() -> bytes:
    cases = tuple(
        CaseReport(name=f"case-{n}", source=f"{n}.json", error="x" * 4000) for n in range(200)
    )
    report = SuiteReport(suite="s", directory="evals/s", mode="replay", cases=cases)
    return to_json(report)


def test_a_full_disk_reports_the_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The failed write's own error and its cause, never the rollback's error after it."""
    path = str(tmp_path / "h.sqlite")
    History(path).__exit__(None, None, None)
    full_at(8, monkeypatch)

    class Disk:
        f_bavail, f_frsize = 3, 4096

    monkeypatch.setattr("harness.history.store.os.statvfs", lambda folder: Disk())
    with History(path) as history, pytest.raises(HistoryError) as caught:
        history.record_artifact(big_artifact())
    message = str(caught.value)
    assert message.startswith(f"{path}: cannot record the run: database or disk is full")
    assert f"the disk is full (no space left in {tmp_path})" in message
    assert "rollback" not in message
    monkeypatch.undo()
    with History(path) as history:
        assert history.suites() == []  # the failed run left nothing behind


FSIZE_WRITER = """
import resource, sys
from harness.errors import HistoryError
from harness.history.store import History
from tests.history.test_store import big_artifact
history = History(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, resource.RLIM_INFINITY))
try:
    history.record_artifact(big_artifact())
except HistoryError as exc:
    print(exc)
"""


def test_a_file_size_limit_is_named(tmp_path: Path) -> None:
    """`ulimit -f` reached mid-write: the message says so, with the limit."""
    path = str(tmp_path / "h.sqlite")
    root = Path(__file__).resolve().parents[2]
    child = subprocess.run(
        [sys.executable, "-c", FSIZE_WRITER, path],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith(f"{path}: cannot record the run: ")
    assert "the history reached the file-size limit (ulimit -f) of 60000 bytes" in child.stdout
    assert "rollback" not in child.stdout


@pytest.mark.parametrize(("path", "kind"), [("/dev/null", "not a regular file"), (".", "a folder")])
def test_a_history_path_that_is_not_a_file_is_refused(path: str, kind: str) -> None:
    """`/dev/null` is not a history: refused before SQLite touches it."""
    with pytest.raises(HistoryError) as caught:
        History(path)
    assert str(caught.value).startswith(f"{path}: cannot open the history: it is {kind}")


@pytest.mark.parametrize("table", ["runs", "case_results"])
def test_a_history_with_a_table_missing_is_refused(tmp_path: Path, table: str) -> None:
    """A dropped table is named when the file is opened, before anything is written."""
    path = tmp_path / "h.sqlite"
    with History(str(path)) as history:
        history.record_artifact(artifact())
    with sqlite3.connect(path) as db:
        db.execute(f"DROP TABLE {table}")
    with pytest.raises(HistoryError, match=f"its table '{table}' is missing"):
        History(str(path))


def test_a_row_of_the_wrong_types_is_named_in_one_line(tmp_path: Path) -> None:
    """A valid SQLite file whose values have the wrong types: the table, row and column."""
    path = tmp_path / "h.sqlite"
    with History(str(path)) as history:
        history.record_artifact(artifact())
    with sqlite3.connect(path) as db:
        db.execute("UPDATE case_results SET duration_s = 'slow' WHERE name = 'moving'")
    run_id = run_id_of(artifact())
    with History(str(path)) as history:
        (run,) = history.runs("capability")
        with pytest.raises(HistoryError) as caught:
            history.case_results([run.run_id])
    assert str(caught.value) == (
        f"{path}: table 'case_results', the row of run_id '{run_id}' and name 'moving',"
        " column duration_s: a value of the wrong type: Expected `float`, got `str`"
    )


def test_an_imported_artifact_that_was_never_redacted_is_stored_redacted(tmp_path: Path) -> None:
    """A report written elsewhere, with a credential in an error, never puts it in the history."""
    report = SuiteReport(
        suite="capability",
        directory="evals/capability",
        mode="replay",
        started_at="2026-01-01T00:00:00Z",
        cases=(CaseReport(name="leaky", source="a.json", error="said glpat-abcdefghij0123456789"),),
    )
    path = tmp_path / "h.sqlite"
    with History(str(path)) as history:
        assert history.record_artifact(to_json(report, git_commit="abc"))
        (case,) = history.case_results([run.run_id for run in history.runs("capability")])
    assert case.error == "said glpa*[REDACTED]"
    assert b"abcdefghij0123456789" not in path.read_bytes()

"""The streamed reports are byte for byte the reports rendered whole."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from harness.fixtures.suite import load_suite
from harness.history.store import History
from harness.pipeline.dispatch import run_suite
from harness.reports.document import to_json
from harness.reports.junit import to_junit_xml
from harness.reports.model import SuiteReport
from harness.reports.stream import ReportStream
from harness.reports.table import render_table
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]


def _streamed(
    report: SuiteReport,
    tmp_path: Path,
    *,
    history: bool = False,
    keep: bool = False,
    spool_kept: bool = False,
) -> ReportStream:
    stream = ReportStream(
        suite=report.suite,
        json_path=str(tmp_path / "r.json"),
        junit_path=str(tmp_path / "r.xml"),
        history=history,
        keep=keep,
        spool_kept=spool_kept,
    )
    for case in report.cases:
        stream.add(case)
    return stream


@pytest.mark.parametrize("spool_kept", [False, True], ids=["held", "spooled"])
@pytest.mark.parametrize("suite", ["regression", "capability"])
def test_streamed_reports_equal_the_whole_ones(
    suite: str, spool_kept: bool, tmp_path: Path
) -> None:
    """JSON and JUnit streamed case by case are the bytes of the report rendered whole; what
    is kept for the table, in memory or spooled, prints the same table."""
    report = run_suite(load_suite(str(REPO / "evals" / suite), None))
    stream = _streamed(report, tmp_path, history=True, keep=True, spool_kept=spool_kept)
    try:
        verdict = stream.finish(report, "abc123")
        assert (tmp_path / "r.json").read_bytes() == to_json(report, git_commit="abc123")
        assert (tmp_path / "r.xml").read_bytes() == to_junit_xml(report, git_commit="abc123")
        assert verdict.all_passed is report.all_passed
        assert verdict.total == report.total
        assert [row[0] for row in stream.rows()] == [case.name for case in report.cases]
        kept = msgspec.structs.replace(report, cases=stream.kept())
        assert [case.passed for case in kept.cases] == [case.passed for case in report.cases]
        assert render_table(kept) == render_table(report)  # what is kept prints the same
    finally:
        stream.close()


def test_an_empty_run_streams_the_empty_report(tmp_path: Path) -> None:
    """No case (an interrupted run, an empty shard) gives `"cases": []` and no testcase."""
    report = SuiteReport(suite="s", directory="d", mode="replay", cases=(), interrupted="SIGINT")
    stream = _streamed(report, tmp_path)
    try:
        verdict = stream.finish(report, None)
    finally:
        stream.close()
    assert (tmp_path / "r.json").read_bytes() == to_json(report)
    assert (tmp_path / "r.xml").read_bytes() == to_junit_xml(report)
    assert verdict.interrupted == "SIGINT"
    assert not verdict.all_passed


def test_the_verdict_is_read_from_the_file_written(tmp_path: Path) -> None:
    """The verdict comes from the JSON report on disk, not from what was meant to be written."""
    report = run_suite(load_suite(str(REPO / "evals" / "regression"), None))
    stream = _streamed(report, tmp_path)
    try:
        assert stream.finish(report, None).all_passed
        path = tmp_path / "r.json"
        path.write_bytes(path.read_bytes().replace(b'"all_passed": true', b'"all_passed": false'))
        assert not stream._verdict(report).all_passed
    finally:
        stream.close()


def test_streamed_history_equals_importing_the_artifact(tmp_path: Path) -> None:
    """The rows streamed into the history are the artifact's, under the artifact's hash."""
    report = run_suite(load_suite(str(REPO / "evals" / "capability"), None))
    stream = _streamed(report, tmp_path, history=True)
    try:
        stream.finish(report, None)
        with History(str(tmp_path / "h.db")) as history:
            assert history.record_streamed(stream.run_id or "", stream.document(), stream.rows())
            again = (tmp_path / "r.json").read_bytes()
            assert not history.record_artifact(again)  # the same run: already recorded
            runs = history.runs("capability")
            rows = history.case_results([runs[0].run_id])
    finally:
        stream.close()
    assert [(run.passed, run.total) for run in runs] == [(report.passed, report.total)]
    assert sorted(row.name for row in rows) == sorted(case.name for case in report.cases)


def test_run_suite_streams_without_keeping(tmp_path: Path) -> None:
    """`on_case` sees every case in order; `keep_cases=False` keeps none in the report."""
    suite = load_suite(str(REPO / "evals" / "capability"), None)
    seen: list[str] = []
    report = run_suite(suite, on_case=lambda case: seen.append(case.name), keep_cases=False)
    assert report.cases == ()
    assert seen == [case.name for case in suite.cases]


def test_junit_batches_join_into_the_whole_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cases rendered into JUnit in batches (here of 3, of 11 cases) give the same bytes."""
    import harness.reports.stream as stream_module

    monkeypatch.setattr(stream_module, "JUNIT_BATCH", 3)
    report = run_suite(load_suite(str(REPO / "evals" / "capability"), None))
    stream = _streamed(report, tmp_path)
    try:
        stream.finish(report, None)
    finally:
        stream.close()
    assert (tmp_path / "r.xml").read_bytes() == to_junit_xml(report)


def test_a_run_whose_every_case_was_skipped_is_not_a_pass_in_the_json(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """The streamed JSON report, which the verdict is read from, says so; the exit status too."""
    from harness._cli.main import main
    from tests.builders import echo_trace

    path = write_fixture("skipped.json", echo_trace(skip="flaky upstream"))
    out = tmp_path / "r.json"
    assert main(["run", "--suite", str(path.parent), "--json", str(out)]) == 1
    document = json.loads(out.read_text(encoding="utf-8"))
    assert (document["all_passed"], document["skipped"], document["total"]) == (False, 1, 1)

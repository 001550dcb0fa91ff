"""The writers, fed case by case as a run finishes them, write the reports rendered whole."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness._cli.main import main
from harness.fixtures.suite import load_suite
from harness.history.store import History
from harness.history.writer import HistoryWriter
from harness.pipeline.dispatch import run_suite
from harness.reports.github import SummaryWriter, step_summary
from harness.reports.junit import to_junit_xml
from harness.reports.model import SuiteReport
from harness.reports.table import render_table
from harness.reports.writers import JsonWriter, JunitWriter, TableWriter, feed, to_json
from tests.builders import echo_trace
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("suite", ["regression", "capability"])
def test_writers_fed_as_cases_finish_equal_the_whole_reports(suite: str, tmp_path: Path) -> None:
    """JSON, JUnit and the table written from a run's cases as they finish are the bytes of
    the report rendered whole."""
    json_writer = JsonWriter(str(tmp_path / "r.json"), spooled=True)
    junit = JunitWriter(str(tmp_path / "r.xml"))
    table = TableWriter()
    writers = (json_writer, junit, table)
    report = run_suite(
        load_suite(str(REPO / "evals" / suite), None),
        on_case=lambda case: feed(writers, (case,)),
    )
    head = msgspec.structs.replace(report, cases=())
    try:
        json_writer.close(head, "abc123")
        junit.close(head, "abc123", hostname="h")
        written = (tmp_path / "r.json").read_bytes()
        assert written == to_json(report, git_commit="abc123")
        junit_xml = (tmp_path / "r.xml").read_bytes()
        assert junit_xml == to_junit_xml(report, git_commit="abc123", hostname="h")
        assert "\n".join(table.close(head)) == render_table(report)
    finally:
        json_writer.discard()


def test_an_empty_run_writes_the_empty_report(tmp_path: Path) -> None:
    """No case (an interrupted run, an empty shard) gives `"cases": []` and no testcase."""
    head = SuiteReport(suite="s", directory="d", mode="replay", cases=(), interrupted="SIGINT")
    json_writer, junit = JsonWriter(str(tmp_path / "r.json")), JunitWriter(str(tmp_path / "r.xml"))
    json_writer.close(head, None)
    junit.close(head, None, hostname="h")
    assert (tmp_path / "r.json").read_bytes() == to_json(head)
    assert (tmp_path / "r.xml").read_bytes() == to_junit_xml(head, hostname="h")
    assert json_writer.document().interrupted == "SIGINT"
    assert not json_writer.document().all_passed


def test_the_json_head_counts_the_cases_fed_not_the_head(tmp_path: Path) -> None:
    """The totals are those of the cases added: the head's (empty) cases are never read."""
    report = run_suite(load_suite(str(REPO / "evals" / "capability"), None))
    writer = JsonWriter()
    feed((writer,), report.cases)
    writer.close(msgspec.structs.replace(report, cases=()), None)
    document = writer.document()
    assert (document.passed, document.failed, document.total) == (
        report.passed,
        report.failed,
        report.total,
    )
    assert document.all_passed is report.all_passed
    assert b"".join(writer.pieces()) == to_json(report)


def test_the_history_writer_records_what_importing_the_artifact_would(tmp_path: Path) -> None:
    """The rows written into the history are the artifact's, under the artifact's hash."""
    report = run_suite(load_suite(str(REPO / "evals" / "capability"), None))
    json_writer, history = JsonWriter(str(tmp_path / "r.json")), HistoryWriter(str(tmp_path / "h"))
    feed((json_writer, history), report.cases)
    json_writer.close(report, None)
    assert json_writer.run_id is not None
    assert history.close(json_writer.run_id, json_writer.document())
    with History(str(tmp_path / "h")) as store:
        assert not store.record_artifact((tmp_path / "r.json").read_bytes())  # already there
        runs = store.runs("capability")
        rows = store.case_results([runs[0].run_id])
    assert [(run.passed, run.total) for run in runs] == [(report.passed, report.total)]
    assert sorted((row.name, row.passed) for row in rows) == sorted(
        (case.name, case.passed) for case in report.cases
    )


def test_the_summary_writer_publishes_the_summary_of_the_whole_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the summary writer holds makes the summary the whole report makes."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    report = run_suite(load_suite(str(REPO / "evals" / "capability"), None))
    writer = SummaryWriter()
    feed((writer,), report.cases)
    writer.close(msgspec.structs.replace(report, cases=()), "table")
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == step_summary(report)


def test_run_suite_feeds_without_keeping() -> None:
    """`on_case` sees every case in order; `keep_cases=False` keeps none in the report."""
    suite = load_suite(str(REPO / "evals" / "capability"), None)
    seen: list[str] = []
    report = run_suite(suite, on_case=lambda case: seen.append(case.name), keep_cases=False)
    assert report.cases == ()
    assert seen == [case.name for case in suite.cases]


def test_a_run_whose_every_case_was_skipped_is_not_a_pass_in_the_json(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """The JSON report says so; the exit status too."""
    path = write_fixture("skipped.json", echo_trace(skip="flaky upstream"))
    out = tmp_path / "r.json"
    assert main(["run", "--suite", str(path.parent), "--json", str(out)]) == 1
    document = json.loads(out.read_text(encoding="utf-8"))
    assert (document["all_passed"], document["skipped"], document["total"]) == (False, 1, 1)


CLASHES = {0: "dup case", 300: "dup  case", 5: "red", 290: "\x1b[31mred\x1b[0m"}
"""Names that are one only once cleaned (extra spaces, a color code), far apart."""


def _timeless_junit(data: bytes) -> bytes:
    return re.sub(rb' (time|timestamp)="[^"]*"', b"", data)


def _timeless_json(data: bytes) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(data)
    for key in ("duration_s", "started_at"):
        document.pop(key)
    for case in document["cases"]:
        case.pop("duration_s")
        for call in case["tool_calls"]:
            call.pop("started_s", None)
            call.pop("duration_s", None)
    return document


def test_a_merge_of_shards_writes_the_unsharded_runs_junit_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Names that clash only once cleaned, more than a batch of cases apart, get their
    `[file.json]` in the run's JUnit as in the merge's; both files are the same."""
    suite = tmp_path / "suite"
    suite.mkdir()
    for index in range(301):
        trace = echo_trace(model_name=CLASHES.get(index, f"case {index}"))
        (suite / f"c{index:03d}.json").write_text(json.dumps(trace), encoding="utf-8")
    whole = ["--json", str(tmp_path / "w.json"), "--junit", str(tmp_path / "w.xml")]
    assert main(["run", "--suite", str(suite), *whole]) == 0
    parts = [str(tmp_path / f"p{index}.json") for index in (1, 2)]
    for index, part in enumerate(parts, 1):
        assert main(["run", "--suite", str(suite), "--shard", f"{index}/2", "--json", part]) == 0
    merged = ["--json", str(tmp_path / "m.json"), "--junit", str(tmp_path / "m.xml")]
    assert main(["merge", *parts, *merged]) == 0
    capsys.readouterr()
    junit = (tmp_path / "w.xml").read_bytes()
    assert b'name="dup case [c000.json]"' in junit
    assert b'name="dup  case [c300.json]"' in junit
    assert b'name="red [c005.json]"' in junit
    assert b'name="red [c290.json]"' in junit
    assert _timeless_junit((tmp_path / "m.xml").read_bytes()) == _timeless_junit(junit)
    merged_json = _timeless_json((tmp_path / "m.json").read_bytes())
    assert merged_json == _timeless_json((tmp_path / "w.json").read_bytes())

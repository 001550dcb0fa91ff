"""`harness run --history`, `harness history import` and `harness trend`, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._cli.main import main
from tests.builders import echo_trace
from tests.conftest import WriteFixture


@pytest.fixture
def suite(write_fixture: WriteFixture) -> Path:
    write_fixture("a.json", echo_trace(model_name="steady"))
    write_fixture(
        "b.json", echo_trace(model_name="flipper", expects={"response_contains": ["nope"]})
    )
    return write_fixture("c.json", echo_trace(model_name="other")).parent


def test_two_runs_with_a_flipped_case_show_in_the_trend(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run, fix one fixture, run again: 2 runs, the right rates, the case newly passing."""
    history = str(tmp_path / "h.sqlite")
    assert main(["run", "--suite", str(suite), "--history", history]) == 1
    (suite / "b.json").write_text(json.dumps(echo_trace(model_name="flipper")))
    assert main(["run", "--suite", str(suite), "--history", history]) == 0
    capsys.readouterr()
    assert main(["trend", "--history", history, "--format", "json"]) == 0
    trend = json.loads(capsys.readouterr().out)
    assert trend["suite"] == "suite"
    assert [(r["passed"], r["total"]) for r in trend["runs"]] == [(2, 3), (3, 3)]
    assert [round(r["pass_rate"], 3) for r in trend["runs"]] == [0.667, 1.0]
    assert trend["newly_passing"] == ["flipper"]
    assert trend["newly_failing"] == []
    assert main(["trend", "--history", history]) == 0
    assert "newly passing since the previous run: flipper" in capsys.readouterr().out


def test_history_can_be_rebuilt_from_artifacts_and_reimport_changes_nothing(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`history import` of the runs' JSON artifacts equals recording them; twice adds nothing."""
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    recorded = str(tmp_path / "recorded.sqlite")
    main(["run", "--suite", str(suite), "--json", str(first), "--history", recorded])
    main(["run", "--suite", str(suite), "--json", str(second), "--history", recorded])
    rebuilt = str(tmp_path / "rebuilt.sqlite")
    capsys.readouterr()
    assert main(["history", "import", str(first), str(second), "--history", rebuilt]) == 0
    assert "imported 2 run(s), 0 already recorded" in capsys.readouterr().out
    assert main(["history", "import", str(first), str(second), "--history", rebuilt]) == 0
    assert "imported 0 run(s), 2 already recorded" in capsys.readouterr().out
    assert main(["history", "import", str(second), "--history", recorded]) == 0
    assert "imported 0 run(s), 1 already recorded" in capsys.readouterr().out
    for path in (recorded, rebuilt):
        main(["trend", "--history", path, "--format", "json"])
        assert len(json.loads(capsys.readouterr().out)["runs"]) == 2


def test_import_is_all_or_nothing(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One bad artifact imports nothing and names the file, exit 2."""
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    main(["run", "--suite", str(suite), "--json", str(good)])
    bad.write_text("{}")
    history = str(tmp_path / "h.sqlite")
    assert main(["history", "import", str(good), str(bad), "--history", history]) == 2
    assert f"harness: {bad}: not a harness JSON report" in capsys.readouterr().err
    assert main(["trend", "--history", history]) == 2


def test_import_refuses_a_key_written_twice(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report whose failing case was edited by writing `passed` again (a decoder keeps the
    last) is refused, naming the file and the place, and nothing is imported."""
    report = tmp_path / "r.json"
    main(["run", "--suite", str(suite), "--json", str(report)])
    text = report.read_text()
    assert '"passed": false,' in text
    report.write_text(text.replace('"passed": false,', '"passed": false, "passed": true,', 1))
    history = str(tmp_path / "h.sqlite")
    capsys.readouterr()
    assert main(["history", "import", str(report), "--history", history]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: {report}: $.cases[")
    assert err.endswith(': key "passed" appears twice\n')
    assert main(["trend", "--history", history]) == 2


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("total", 2**70, "Expected `int` <= 9007199254740992 - at `$.total`"),
        ("duration_s", -5, "Expected `float` >= 0.0 - at `$.duration_s`"),
    ],
    ids=["count-past-sqlite", "negative-duration"],
)
def test_import_refuses_a_number_out_of_bounds(
    suite: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    key: str,
    value: int,
    reason: str,
) -> None:
    """2**70 (past SQLite's integers: an OverflowError traceback) is one line, exit 2."""
    report = tmp_path / "r.json"
    main(["run", "--suite", str(suite), "--json", str(report)])
    report.write_text(json.dumps({**json.loads(report.read_text()), key: value}))
    capsys.readouterr()
    assert main(["history", "import", str(report), "--history", str(tmp_path / "h.sqlite")]) == 2
    assert capsys.readouterr().err == f"harness: {report}: not a harness JSON report: {reason}\n"


def test_trend_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suite: Path
) -> None:
    """No history, an unknown suite and a bad --last are exit 2 with one line."""
    history = str(tmp_path / "h.sqlite")
    assert main(["trend", "--history", history]) == 2
    assert "no history yet" in capsys.readouterr().err
    main(["run", "--suite", str(suite), "--history", history])
    capsys.readouterr()
    assert main(["trend", "--history", history, "--suite", "nope"]) == 2
    assert "no recorded runs of suite 'nope' (recorded: suite)" in capsys.readouterr().err
    assert main(["trend", "--history", history, "--last", "0"]) == 2
    assert "expected a whole number from 1 to 1000000" in capsys.readouterr().err


def test_trend_writes_markdown_to_the_step_summary_and_an_html_page(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """GITHUB_STEP_SUMMARY gets the Markdown; --html writes the page."""
    history = str(tmp_path / "h.sqlite")
    main(["run", "--suite", str(suite), "--history", history])
    capsys.readouterr()
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    page = tmp_path / "out" / "trend.html"
    assert main(["trend", "--history", history, "--format", "markdown", "--html", str(page)]) == 0
    assert capsys.readouterr().out.startswith("### harness trend: suite (1 run(s))")
    assert "### harness trend: suite" in summary.read_text()
    assert "<svg" in page.read_text()


def test_regression_gate_does_not_need_a_history(suite: Path, tmp_path: Path) -> None:
    """Without --history, nothing is recorded: beside it, only the last-failed cache is kept."""
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.harness]\nhistory = "hist/h.sqlite"\n')
    assert main(["run", "--suite", str(suite), "--config", str(config)]) == 1
    assert sorted(path.name for path in (tmp_path / "hist").iterdir()) == ["last-failed.json"]


def test_last_keeps_the_history_run_numbers(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--last 2` of 4 runs shows runs #3 and #4, with dates and commits, not #1 and #2."""
    history = str(tmp_path / "h.sqlite")
    for _ in range(4):
        main(["run", "--suite", str(suite), "--history", history])
    capsys.readouterr()
    assert main(["trend", "--history", history, "--last", "2", "--format", "json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [run["number"] for run in runs] == [3, 4]
    assert all(run["started_at"] for run in runs)
    assert main(["trend", "--history", history, "--last", "2"]) == 0
    out = capsys.readouterr().out
    rows = [line.split()[0] for line in out.splitlines() if line[:2] in {"#1", "#2", "#3", "#4"}]
    assert rows == ["#3", "#4"]
    assert "#1" not in out
    assert main(["trend", "--history", history, "--last", "2", "--format", "markdown"]) == 0
    assert "| #3 | " in capsys.readouterr().out


def test_trend_on_rows_of_the_wrong_types_is_one_line_naming_the_row(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A valid SQLite history with a text where a count belongs: exit 2, no traceback."""
    import sqlite3

    history = str(tmp_path / "h.sqlite")
    main(["run", "--suite", str(suite), "--history", history])
    with sqlite3.connect(history) as db:
        db.execute("UPDATE runs SET total = 'many'")
    capsys.readouterr()
    assert main(["trend", "--history", history]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: {history}: table 'runs', the row of run_id '")
    assert err.endswith("column total: a value of the wrong type: Expected `int`, got `str`\n")
    assert len(err.splitlines()) == 1


def test_import_into_a_history_with_a_missing_table_refuses(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2, and no claim that anything was imported or already recorded."""
    import sqlite3

    report, history = tmp_path / "r.json", str(tmp_path / "h.sqlite")
    main(["run", "--suite", str(suite), "--json", str(report), "--history", history])
    with sqlite3.connect(history) as db:
        db.execute("DROP TABLE case_results")
    capsys.readouterr()
    assert main(["history", "import", "--history", history, str(report)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"harness: {history}: is not a usable history: its table 'case_results' is missing\n"
    )


def test_import_refuses_a_fifo_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO named like an artifact is refused without opening it for a blocking read."""
    import os

    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    history = str(tmp_path / "h.sqlite")
    assert main(["history", "import", "--history", history, str(fifo)]) == 2
    assert capsys.readouterr().err == f"harness: {fifo}: is not a regular file, not a report file\n"
    assert not os.path.exists(history)  # refused before the history was touched


@pytest.mark.parametrize("page", ["history", "fixture"])
def test_the_trend_page_never_replaces_the_history_or_another_file(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], page: str
) -> None:
    """`--html` naming the history database or a file not a page: exit 2, both left intact."""
    history = tmp_path / "h.sqlite"
    assert main(["run", "--suite", str(suite), "--history", str(history)]) == 1
    target = history if page == "history" else suite / "a.json"
    before, kept = target.read_bytes(), history.read_bytes()
    capsys.readouterr()
    assert main(["trend", "--history", str(history), "--html", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: --html {target}: ")
    assert ("history database" if page == "history" else "not a harness HTML page") in err
    assert err.count("\n") == 1
    assert target.read_bytes() == before
    assert history.read_bytes() == kept

"""`harness report --html`, and `--html` on `harness run`, `merge` and `trend`, end to end."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from harness._cli.main import main
from tests.builders import echo_trace
from tests.conftest import WriteFixture


@pytest.fixture
def suite(write_fixture: WriteFixture) -> Path:
    write_fixture("a.json", echo_trace(model_name="steady"))
    return write_fixture(
        "b.json", echo_trace(model_name="broken", expects={"response_contains": ["nope"]})
    ).parent


def run_id(page: Path) -> str:
    found = re.search(r'<meta name="harness-run" content="([0-9a-f]{64})">', page.read_text())
    assert found is not None
    return found[1]


def test_run_writes_the_page_of_the_json_it_wrote(suite: Path, tmp_path: Path) -> None:
    """`run --html` names the run by its JSON report's SHA-256, as the history does."""
    report, page = tmp_path / "r.json", tmp_path / "r.html"
    argv = ["run", "--suite", str(suite), "--json", str(report), "--html", str(page)]
    assert main(argv) == 1
    assert run_id(page) == hashlib.sha256(report.read_bytes()).hexdigest()
    assert '"n":"broken","st":"failed"' in page.read_text()


def test_report_draws_the_same_page_from_the_json(suite: Path, tmp_path: Path) -> None:
    """`harness report` on a run's JSON report draws the page the run drew, exit 0."""
    report, page, again = tmp_path / "r.json", tmp_path / "r.html", tmp_path / "again.html"
    main(["run", "--suite", str(suite), "--json", str(report), "--html", str(page)])
    assert main(["report", "--html", str(again), str(report)]) == 0
    assert again.read_text() == page.read_text()


def test_run_html_alone_needs_no_json_path(suite: Path, tmp_path: Path) -> None:
    """`--html` without `--json` still draws every case."""
    page = tmp_path / "r.html"
    assert main(["run", "--suite", str(suite), "--html", str(page)]) == 1
    assert '"n":"steady","st":"passed"' in page.read_text()


def test_report_refuses_to_write_over_its_input(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A page that would replace the JSON report it reads is refused: exit 2, one line."""
    report = tmp_path / "r.json"
    main(["run", "--suite", str(suite), "--json", str(report)])
    before = report.read_bytes()
    capsys.readouterr()
    assert main(["report", "--html", str(report), str(report)]) == 2
    assert "the same file as the report" in capsys.readouterr().err
    assert report.read_bytes() == before


def test_report_names_a_file_that_is_not_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not a JSON report: one line naming it, exit 2, no page."""
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    assert main(["report", "--html", str(tmp_path / "p.html"), str(bad)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert str(bad) in line
    assert "not a harness JSON report" in line
    assert not (tmp_path / "p.html").exists()


def test_merge_and_report_of_shards_draw_the_whole_run(suite: Path, tmp_path: Path) -> None:
    """`merge --html` and `report` over the shards both show every case of the run."""
    parts = [str(tmp_path / f"{n}.json") for n in (1, 2)]
    for n, part in enumerate(parts, 1):
        main(["run", "--suite", str(suite), "--shard", f"{n}/2", "--json", part])
    merged, drawn = tmp_path / "m.html", tmp_path / "d.html"
    assert main(["merge", *parts, "--html", str(merged)]) == 1
    assert main(["report", "--html", str(drawn), *parts]) == 0
    for page in (merged, drawn):
        assert '"n":"broken"' in page.read_text()
        assert '"n":"steady"' in page.read_text()


def test_report_marks_the_flips_against_a_baseline(suite: Path, tmp_path: Path) -> None:
    """With `--baseline`, the header lists the flips and the flipped case is marked."""
    baseline, report, page = tmp_path / "b.json", tmp_path / "r.json", tmp_path / "p.html"
    (suite / "b.json").write_text(json.dumps(echo_trace(model_name="broken")))
    main(["run", "--suite", str(suite), "--write-baseline", str(baseline)])
    (suite / "b.json").write_text(
        json.dumps(echo_trace(model_name="broken", expects={"response_contains": ["nope"]}))
    )
    main(["run", "--suite", str(suite), "--json", str(report)])
    assert main(["report", "--html", str(page), "--baseline", str(baseline), str(report)]) == 0
    text = page.read_text()
    assert "Against the baseline" in text
    assert '"n":"broken","st":"failed"' in text
    assert '"b":"failing"' in text  # a changed fixture that fails: no failure excuses it


def test_trend_links_each_run_to_its_page_beside_it(suite: Path, tmp_path: Path) -> None:
    """A run whose page is kept beside the trend page links to it; the others say so."""
    history, pages = str(tmp_path / "h.sqlite"), tmp_path / "pages"
    pages.mkdir()
    main(["run", "--suite", str(suite), "--history", history])
    main(["run", "--suite", str(suite), "--history", history, "--html", str(pages / "2.html")])
    assert main(["trend", "--history", history, "--html", str(pages / "trend.html")]) == 0
    trend = (pages / "trend.html").read_text()
    assert '<a href="2.html">report #2</a>' in trend
    assert trend.count("not kept") == 1


def test_run_with_a_baseline_marks_its_flips_on_the_page(suite: Path, tmp_path: Path) -> None:
    """`run --baseline --html`: the page's header holds the comparison the run printed."""
    baseline, page = tmp_path / "b.json", tmp_path / "p.html"
    (suite / "b.json").write_text(json.dumps(echo_trace(model_name="broken")))
    main(["run", "--suite", str(suite), "--write-baseline", str(baseline)])
    (suite / "c.json").write_text(json.dumps(echo_trace(model_name="newcomer")))
    assert (
        main(["run", "--suite", str(suite), "--baseline", str(baseline), "--html", str(page)]) == 0
    )
    text = page.read_text()
    assert "baseline: 1 new (not in the baseline): newcomer" in text
    assert '"n":"newcomer","st":"passed","d"' in text
    assert '"b":"new"' in text

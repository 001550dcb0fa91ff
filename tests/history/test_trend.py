"""Trend computation and its table and Markdown renderings."""

from __future__ import annotations

from harness.history.render import render_trend_markdown, render_trend_table
from harness.history.store import CaseRow, RunRow
from harness.history.trend_model import compute_trend


def runs(count: int) -> list[RunRow]:
    return [
        RunRow(f"r{i}", "s", "replay", f"2026-01-0{i + 1}T00:00:00Z", "abc", "0.1.0", 0, 2, 0.1)
        for i in range(count)
    ]


def result(run: int, name: str, status: str) -> CaseRow:
    error = "boom" if status == "error" else None
    return CaseRow(f"r{run}", name, f"{name}.json", status == "pass", error, 0.0)


def test_grid_newly_passing_failing_and_flaky() -> None:
    """Statuses line up by run; flips since the previous run and repeated flips are found."""
    trend = compute_trend(
        "s",
        runs(4),
        [
            *(result(i, "steady", "pass") for i in range(4)),
            *(result(i, "fixed", s) for i, s in enumerate(["fail", "fail", "fail", "pass"])),
            *(result(i, "broke", s) for i, s in enumerate(["pass", "pass", "pass", "error"])),
            *(result(i, "flappy", s) for i, s in enumerate(["pass", "fail", "pass", "pass"])),
            result(3, "new", "pass"),
        ],
    )
    grid = {case.name: case.statuses for case in trend.cases}
    assert grid["new"] == (None, None, None, "pass")
    assert grid["broke"] == ("pass", "pass", "pass", "error")
    assert trend.newly_passing == ("fixed",)
    assert trend.newly_failing == ("broke",)
    assert trend.flaky == ("flappy",)


def test_pass_rate_per_run() -> None:
    """Each run's pass rate is passed / total."""
    rows = [
        RunRow("a", "s", "replay", "t1", None, "v", 1, 4, 0.0),
        RunRow("b", "s", "replay", "t2", None, "v", 3, 4, 0.0),
    ]
    trend = compute_trend("s", rows, [])
    assert [p.pass_rate for p in trend.runs] == [0.25, 0.75]


def test_a_case_absent_from_the_previous_run_is_not_a_flip() -> None:
    """Coming or going is not passing or failing."""
    trend = compute_trend("s", runs(2), [result(1, "new", "fail")])
    assert trend.newly_failing == ()


def test_renderings_show_runs_grid_and_lists() -> None:
    """The table and Markdown carry the same facts."""
    trend = compute_trend("s", runs(2), [result(0, "a|b", "fail"), result(1, "a|b", "pass")])
    table = render_trend_table(trend)
    assert "newly passing since the previous run: a|b" in table
    assert "0.0%" in table
    markdown = render_trend_markdown(trend)
    assert "| a\\|b | ✗ | ✓ |" in markdown
    assert "- **newly passing since the previous run**: a\\|b" in markdown


def test_the_trend_table_is_laid_out_like_every_table() -> None:
    """Runs, then the grid, in aligned columns with no trailing space; names shown escaped."""
    trend = compute_trend(
        "s",
        runs(2),
        [result(0, "a|b", "fail"), result(1, "a|b", "pass"), result(1, "r\x1b[31m", "error")],
    )
    assert render_trend_table(trend).splitlines()[:11] == [
        "s: 2 run(s)",
        "",
        "#    started               commit    passed    pass rate",
        "---  --------------------  --------  --------  -----------",
        "#1   2026-01-01T00:00:00Z  abc       0/2       0.0%",
        "#2   2026-01-02T00:00:00Z  abc       0/2       0.0%",
        "",
        "case       #1    #2",
        "---------  ----  ----",
        "a|b        ✗     ✓",
        "r\\x1b[31m  ·     E",
    ]

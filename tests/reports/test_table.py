"""The table report."""

from __future__ import annotations

import pytest

from harness.grading.result import GradeResult
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.table import ERROR_LIMIT, render_table


def test_table_rows_failures_under_their_case_and_a_summary() -> None:
    """One row per case; failing checks and errors sit under their case; summary last."""
    report = SuiteReport(
        suite="s",
        directory="s",
        mode="replay",
        cases=(
            CaseReport(
                name="good",
                source="s/good.json",
                grades=(GradeResult(check="a", passed=True, detail="ok"),),
            ),
            CaseReport(
                name="bad",
                source="s/bad.json",
                grades=(
                    GradeResult(check="a", passed=True, detail="ok"),
                    GradeResult(check='response_contains("x")', passed=False, detail="not found"),
                ),
            ),
            CaseReport(
                name="err", source="s/err.json", error="Agent exceeded maximum tool iterations (10)"
            ),
        ),
    )
    lines = render_table(report).splitlines()
    assert lines[2].split() == ["✓", "good", "s/good.json", "1/1", "checks"]
    assert lines[3].split() == ["✗", "bad", "s/bad.json", "1/2", "checks"]
    assert lines[4].strip() == '✗ response_contains("x"): not found'
    assert lines[5].split()[:3] == ["✗", "err", "s/err.json"]
    assert lines[6].strip() == "error: Agent exceeded maximum tool iterations (10)"
    assert lines[-4:] == [
        "",
        'FAILED bad (s/bad.json): response_contains("x")',
        "ERROR err (s/err.json): Agent exceeded maximum tool iterations (10)",
        "1 failed, 1 errored, 1 passed in 0.00s",
    ]


def test_the_table_is_laid_out_as_tabulate_simple_would() -> None:
    """Rendering the table directly gives tabulate's `simple` layout byte for byte."""
    from tabulate import tabulate

    from harness.reports.table import table_rows

    names = ["a", " padded name ", "x" * 40, "tab\there", "ünïcödé", "", "中文"]
    report = SuiteReport(
        suite="s",
        directory="s",
        mode="replay",
        cases=tuple(
            CaseReport(
                name=name,
                source=f"s/{index}.json",
                grades=(GradeResult(check="a", passed=True, detail="ok"),),
            )
            for index, name in enumerate(names)
        ),
    )
    expected = tabulate(
        table_rows(report),
        headers=["", "case", "source", "checks"],
        tablefmt="simple",
        disable_numparse=True,
    )
    rendered = render_table(report).splitlines()
    assert "\n".join(rendered[: 2 + len(names)]) == expected
    empty = SuiteReport(suite="s", directory="s", mode="replay", cases=())
    expected = tabulate([], headers=["", "case", "source", "checks"], tablefmt="simple")
    assert render_table(empty).splitlines()[:2] == expected.splitlines()


def test_a_table_too_large_to_hold_its_rows_is_laid_out_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past ROWS_HELD the rows are made twice rather than held: the same bytes, colors too."""
    import harness.reports.table as table
    from harness.reports.recap import Paint

    cases = tuple(
        CaseReport(
            name=f"case {'x' * (i % 7)}{i}",
            source=f"s/{i}.json",
            grades=(GradeResult(check="c", passed=i % 3 != 0, detail=f"seen {i}"),),
            error="boom" if i % 5 == 0 else None,
        )
        for i in range(40)
    )
    report = SuiteReport(suite="s", directory="s", mode="replay", cases=cases)
    paint: Paint = lambda style, text: f"<{style}>{text}</{style}>"  # noqa: E731
    held = [render_table(report), render_table(report, paint)]
    monkeypatch.setattr(table, "ROWS_HELD", 3)
    assert [render_table(report), render_table(report, paint)] == held
    assert "<error>" in held[1]


def test_a_crashed_agent_row_stays_one_bounded_line() -> None:
    """A 2,000-character traceback: one line under its case, ending on the exception."""
    frames = "\n".join(f'  File "/lib/tool_node.py", line {n}, in run' for n in range(60))
    error = (
        "the agent process exited with status 1 without answering the turn; stderr: "
        f"Traceback (most recent call last):\n{frames}\nRuntimeError: echo backend unavailable"
    )
    report = SuiteReport(
        suite="s",
        directory="s",
        mode="replay",
        cases=(CaseReport(name="err", source="s/err.json", error=error),),
    )
    lines = render_table(report).splitlines()
    detail = lines[3].strip()
    assert detail.startswith("error: the agent process exited with status 1")
    assert detail.endswith("RuntimeError: echo backend unavailable")
    assert "\\n" not in detail
    assert len(detail) <= len("error: ") + ERROR_LIMIT
    assert lines[-2].endswith("⏎ RuntimeError: echo backend unavailable")

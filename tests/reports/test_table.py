"""The table report."""

from __future__ import annotations

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


def _report(*cases: CaseReport) -> SuiteReport:
    return SuiteReport(suite="s", directory="s", mode="replay", cases=cases)


def _case(name: str, *, passed: bool = True, error: str | None = None) -> CaseReport:
    grade = GradeResult(check="c", passed=passed, detail="seen x")
    return CaseReport(name=name, source=f"s/{name}.json", grades=(grade,), error=error)


def test_the_layout_is_pinned_aligned_without_trailing_spaces() -> None:
    """Columns at least their header's width + 2, two spaces apart; no line ends in a space."""
    report = _report(_case("a"), _case(" padded "), _case("a-long-case-name", passed=False))
    assert render_table(report).splitlines()[:6] == [
        "    case              source                   checks",
        "--  ----------------  -----------------------  ----------",
        "✓   a                 s/a.json                 1/1 checks",
        "✓   padded            s/ padded .json          1/1 checks",
        "✗   a-long-case-name  s/a-long-case-name.json  0/1 checks",
        "      ✗ c: seen x",
    ]
    empty = render_table(_report()).splitlines()
    assert empty[:2] == ["    case    source    checks", "--  ------  --------  --------"]


def test_a_baseline_column_sits_last_and_its_empty_cells_leave_no_trailing_space() -> None:
    """`marks` adds a `baseline` column; a row whose mark is empty ends at its checks."""
    report = _report(_case("a"), _case("b", passed=False))
    lines = render_table(report, marks=["", "REGRESSED"]).splitlines()
    assert lines[:5] == [
        "    case    source    checks      baseline",
        "--  ------  --------  ----------  ----------",
        "✓   a       s/a.json  1/1 checks",
        "✗   b       s/b.json  0/1 checks  REGRESSED",
        "      ✗ c: seen x",
    ]


def test_color_is_added_after_layout_and_never_moves_a_column() -> None:
    """A colored table is the plain one with each mark wrapped: escape codes take no width."""
    from harness.reports.recap import Paint

    report = _report(_case("good"), _case("bad", passed=False), _case("err", error="boom"))
    paint: Paint = lambda style, text: f"<{style}>{text}</{style}>"  # noqa: E731
    plain = render_table(report).splitlines()
    colored = render_table(report, paint).splitlines()
    assert colored[2] == "<pass>✓ </pass>" + plain[2][2:]
    assert colored[3] == "<fail>✗ </fail>" + plain[3][2:]
    assert colored[4] == plain[4]  # the failed check under its case is not a row
    assert colored[5] == "<error>✗ </error>" + plain[5][2:]


def test_escape_codes_in_a_case_name_are_shown_not_obeyed() -> None:
    """ANSI and control characters in names are escaped before layout: one row, aligned."""
    report = _report(_case("red\x1b[31mname\nnext"), _case("b"))
    lines = render_table(report).splitlines()
    assert "\x1b" not in "\n".join(lines)
    assert lines[2].split()[1] == "red\\x1b[31mname\\nnext"
    assert lines[3].index("s/b.json") == lines[2].index("s/red")


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

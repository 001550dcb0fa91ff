"""The recap's error line: the exception a crashed agent ends on is never cut away."""

from __future__ import annotations

from harness.reports.recap import error_summary

TRACEBACK = "\n".join(
    [
        "the agent process exited with status 1 without answering the turn; stderr: Traceback "
        "(most recent call last):",
        *(f'  File "/lib/tool_node.py", line {n}, in _execute_tool_sync' for n in range(60)),
        "RuntimeError: echo backend unavailable",
    ]
)


def test_the_first_and_the_exception_line_stay_whole() -> None:
    """First line and last line whole, the frames nearest the exception as room allows."""
    line = error_summary(TRACEBACK, 300)
    assert "\n" not in line
    assert line.startswith("the agent process exited with status 1")
    assert line.endswith(" ⏎ RuntimeError: echo backend unavailable")
    assert "line 59, in _execute_tool_sync" in line
    assert "line 0," not in line
    assert "…" in line
    assert len(line) <= 300


def test_a_long_first_line_gives_way_to_the_exception() -> None:
    """Past the limit, the first line is cut, never the exception line."""
    line = error_summary("x" * 500 + "\nValueError: bad", 100)
    assert line.endswith(" ⏎ ValueError: bad")
    assert "…[truncated" in line


def test_a_one_line_error_keeps_its_end() -> None:
    """One long line: the middle is cut, so its end survives."""
    line = error_summary("a" * 400 + " RuntimeError: boom", 120)
    assert line.endswith("RuntimeError: boom")
    assert error_summary("  \n ", 50) == "the case errored"

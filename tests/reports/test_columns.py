"""The one layout every printed table goes through."""

from __future__ import annotations

from harness.reports.columns import lay_out


def test_rows_come_in_order_under_a_header_and_a_rule() -> None:
    """`[header, rule, *rows]`: each column as wide as its widest cell or its header + 2."""
    assert lay_out(["a", "bb"], [("x", "long cell"), ("yyyy", "z")]) == [
        "a     bb",
        "----  ---------",
        "x     long cell",
        "yyyy  z",
    ]


def test_no_line_ends_in_a_space_and_numbers_stay_text() -> None:
    """An empty last cell leaves no trailing space; `1.50` is not reformatted or right-aligned."""
    lines = lay_out(["n", "note"], [("1.50", ""), ("10", "x")])
    assert lines == ["n     note", "----  ------", "1.50", "10    x"]
    assert all(line == line.rstrip() for line in lines)


def test_a_cell_with_control_characters_stays_one_line() -> None:
    """Newlines and escape codes in a cell are shown escaped: one line per row, no ANSI."""
    lines = lay_out(["case"], [("a\nb\x1b[31m",), ("c",)])
    assert lines == ["case", "------------", "a\\nb\\x1b[31m", "c"]


def test_no_rows_leave_the_header_and_its_rule() -> None:
    """An empty table is its header and rule, so a caller's lines still line up."""
    assert lay_out(["", "case"], []) == ["    case", "--  ------"]

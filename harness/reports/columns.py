"""Columns of text: how every table harness prints is laid out, by tabulate's `simple` format.

The run table, `harness history` and `harness trend`, the baseline comparison and
`harness check` all go through `lay_out`, so they share one look: a header line, a rule of
dashes, then one line per row, columns two spaces apart and at least their header's width + 2,
text left-aligned (a cell is never read as a number), no line ending in a space.

What is not a row (a failed check under its case, an error line) and color are the caller's:
both are added once the lines are laid out, so escape codes never count toward a width.
A width counts characters; tabulate counts columns on screen (wide CJK characters, emoji)
only when the optional `wcwidth` package is installed, which harness does not require.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness.text import printable

__all__ = ["lay_out"]


def lay_out(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """`rows` under `headers`, in aligned columns.

    Every cell is made printable (control characters and escape codes shown, not obeyed), so
    a row is always one line. Lines keep their order: `[header, rule, *one line per row]`,
    which lets a caller place a line that is not a row after its row.

    Args:
        headers: The column titles (an empty one for a column of marks).
        rows: The cells of each row, as many as `headers`.
    """
    # Imported here: a run that prints no table (`--format json`) does not load tabulate.
    from tabulate import tabulate

    cells = [[printable(cell) for cell in row] for row in rows]
    text = tabulate(
        cells,
        headers=[printable(header) for header in headers],
        tablefmt="simple",
        disable_numparse=True,
    )
    return [line.rstrip() for line in text.split("\n")]

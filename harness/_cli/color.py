"""Whether to color what a command prints, and the colors: `--color`, NO_COLOR, FORCE_COLOR.

`--color always` and `--color never` decide alone. With `auto` (the default), a non-empty
`NO_COLOR` turns color off, then a non-empty `FORCE_COLOR` turns it on, and otherwise stdout
gets color only when it is a terminal that is not `TERM=dumb`. Color is only ever added to
what is printed: artifacts (JSON, JUnit, summaries) are rendered without it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from harness.reports.recap import Paint

__all__ = ["CHOICES", "is_terminal", "paint", "palette", "use_color"]

CHOICES = ("auto", "always", "never")
"""The values of `--color`."""

_CODES = {"pass": "32", "fail": "31", "error": "33", "bold": "1", "dim": "2"}


def use_color(choice: str, stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Whether text written to `stream` gets color, for `--color choice`."""
    if choice != "auto":
        return choice == "always"
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return is_terminal(stream) and env.get("TERM") != "dumb"


def is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is a terminal (False for anything that cannot say)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def paint(style: str, text: str) -> str:
    """`text` in the ANSI color of `style` (`pass` green, `fail` red, `error` yellow, `bold`)."""
    return f"\x1b[{_CODES[style]}m{text}\x1b[0m"


def palette(enabled: bool) -> Paint | None:
    """`paint` when color is on, else None (plain text)."""
    return paint if enabled else None

"""What a run shows while it runs: one updating progress line on a terminal, `-v` lines.

Only `harness run` on a terminal (or with `--verbose`) imports this module, so a run whose
output goes to a file or a pipe pays nothing for it. The progress line is drawn with a
carriage return and blanked with spaces before anything else is printed, so it never leaves
an escape sequence behind.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TextIO

from harness._cli.pipe import write
from harness.reports.recap import duration
from harness.text import printable

if TYPE_CHECKING:
    from harness.reports.model import CaseReport
    from harness.reports.recap import Paint

__all__ = ["REDRAW_EVERY", "Progress"]

REDRAW_EVERY = 0.1
"""Seconds between redraws of the progress line: a fast run is not slowed by drawing."""


class Progress:
    """Counts cases as they finish; draws the progress line and the `-v` lines.

    Args:
        total: How many cases the run holds.
        stream: Where the progress line goes (a terminal), or None for no progress line.
        verbose: Where each case's verdict goes as it finishes, or None.
        paint: Colors the words `PASS`, `FAIL`, `ERROR`; None for plain text.
    """

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None,
        verbose: TextIO | None = None,
        paint: Paint | None = None,
    ) -> None:
        self.total = total
        self.done = self.failed = self.errored = 0
        self._stream, self._verbose, self._paint = stream, verbose, paint
        self._started = time.perf_counter()
        self._drawn = 0  # characters of the progress line now on screen
        self._last_draw = float("-inf")

    def start(self) -> None:
        """Show the line at once: the run has begun, even if its first case is slow."""
        self._draw()

    def add(self, case: CaseReport) -> None:
        """Count `case`; print its `-v` line; redraw the progress line if it is time."""
        self.done += 1
        if case.error is not None:
            self.errored += 1
        elif case.failing:
            self.failed += 1
        if self._verbose is not None:
            self._erase()
            if not write(self._verbose, self.verdict(case) + "\n"):
                self._verbose = None  # its reader went away: the run goes on
            self._draw()
        elif time.perf_counter() - self._last_draw >= REDRAW_EVERY or self.done == self.total:
            self._draw()

    def finish(self) -> None:
        """Blank the progress line, leaving the terminal as it was for the report."""
        self._erase()

    def verdict(self, case: CaseReport) -> str:
        """`PASS name (0.01s)`: one case's `-v` line."""
        word, style = {
            "errored": ("ERROR", "error"),
            "skipped": ("SKIP", "bold"),
            "passed": ("PASS", "pass"),
            "failed": ("FAIL", "fail"),
        }[case.outcome]
        label = word.ljust(5)
        if self._paint is not None:
            label = self._paint(style, label)
        line = f"{label} {printable(case.name)} ({duration(case.duration)})"
        if case.outcome == "failed":
            failed = len(case.failed_grades)
            line += f": {len(case.grades) - failed}/{len(case.grades)} checks"
        return line

    def line(self) -> str:
        """`37/200 cases, 2 failed, 1 errored, 12.3s`: the progress line's text."""
        text = f"{self.done}/{self.total} cases"
        if self.failed:
            text += f", {self.failed} failed"
        if self.errored:
            text += f", {self.errored} errored"
        return f"{text}, {duration(time.perf_counter() - self._started)}"

    def _draw(self) -> None:
        if self._stream is None:
            return
        text = self.line()
        if not write(self._stream, "\r" + text + " " * max(self._drawn - len(text), 0)):
            self._stream = None
            return
        self._drawn = len(text)
        self._last_draw = time.perf_counter()

    def _erase(self) -> None:
        if self._stream is None or not self._drawn:
            return
        write(self._stream, "\r" + " " * self._drawn + "\r")
        self._drawn = 0

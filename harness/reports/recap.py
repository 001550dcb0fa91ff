"""The recap under the table: each failed or errored case on one line, then the totals.

`FAILED name (path): first failed check` and `ERROR name (path): why`, then one line such as
`3 failed, 2 errored, 195 passed in 28.4s`, followed by what else the reader must know about
the run (a shard, a selection, stopped at the first failure, interrupted).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.reports.model import CaseReport, SuiteReport
from harness.text import cut_middle, printable, truncate

__all__ = ["Paint", "case_line", "duration", "error_summary", "render_recap", "summary_line"]

Paint = Callable[[str, str], str]
"""Colors `text` (second argument) in a style (`pass`, `fail`, `error`, `bold`)."""

_REASON_LIMIT = 300
"""Characters of an error message shown on its recap line, the exception line aside."""
_LAST_LIMIT = 1000
"""The longest last line an error summary keeps whole."""
_JOIN = " ⏎ "


def render_recap(report: SuiteReport, paint: Paint | None = None) -> str:
    """The recap: a line per failed or errored case, then the summary line."""
    lines = [
        case_line(case, paint) for case in report.cases if not case.passed and case.skipped is None
    ]
    if lines:
        lines.insert(0, "")
    lines.append(summary_line(report, paint))
    return "\n".join(lines)


def case_line(case: CaseReport, paint: Paint | None = None) -> str:
    """`FAILED name (path): first failed check`, or `ERROR name (path): the error's first line`."""
    where = f"{printable(case.name)} ({printable(case.source)})"
    if case.error is not None:
        label, style, reason = "ERROR", "error", error_summary(case.error, _REASON_LIMIT)
    else:
        failed = case.failed_grades
        reason = failed[0].check if failed else "the case declares no check"
        label, style = "FAILED", "fail"
    if paint is not None:
        label = paint(style, label)
    return f"{label} {where}: {printable(reason)}".rstrip()


def error_summary(error: str, limit: int) -> str:
    """`error` on one line: its first line, and its last (a crashed agent's exception, the
    end of its stderr) whole, with as much of what lies between as `limit` leaves room for,
    nearest the last line first. The JSON and JUnit reports keep the error whole."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    if not lines:
        return "the case errored"
    if len(lines) == 1:
        return cut_middle(lines[0], limit)
    first, middle, last = lines[0], lines[1:-1], cut_middle(lines[-1], _LAST_LIMIT)
    room = limit - len(first) - len(last) - 2 * len(_JOIN)
    if room < 0:
        return truncate(first, max(limit - len(last) - len(_JOIN), 40)) + _JOIN + last
    kept: list[str] = []
    for line in reversed(middle):
        if len(line) + len(_JOIN) > room:
            kept.insert(0, "…")
            break
        kept.insert(0, line)
        room -= len(line) + len(_JOIN)
    return _JOIN.join([first, *kept, last])


def summary_line(report: SuiteReport, paint: Paint | None = None) -> str:
    """`3 failed, 2 errored, 195 passed in 28.4s`, and what limited the run."""
    counts = (
        (report.failed - report.errored, "failed"),
        (report.errored, "errored"),
        (report.passed, "passed"),
        (report.skipped, "skipped (not run, not passed)"),
    )
    tally = ", ".join(f"{count} {word}" for count, word in counts if count) or "no case ran"
    line = f"{tally} in {duration(report.duration)}"
    notes = []
    if report.shard is not None:
        notes.append(f"shard {report.shard} of a {report.suite_total}-case suite")
    if report.selection is not None:
        notes.append(f"selected by {printable(report.selection)}")
    if report.stopped_early:
        notes.append("stopped at the first failed or errored case (--exitfirst)")
    if report.interrupted is not None:
        notes.append(f"INTERRUPTED by {report.interrupted}: the other cases did not run")
    if notes:
        line += "; " + "; ".join(notes)
    if paint is not None:
        line = paint("bold", paint("pass" if report.all_passed else "fail", line))
    return line


def duration(seconds: float) -> str:
    """`0.04s`, `28.4s`, `3m12s`: a wall time as people read it."""
    if seconds < 10:
        return f"{max(seconds, 0.0):.2f}s"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"

"""GitHub Actions integration: the job summary and annotations on failing fixtures.

Both carry observed text, so both go through `harness.text`: the summary is Markdown with HTML
escaped, the annotations are workflow commands in which no `::` can start a command of its
own. GitHub refuses a step summary over 1 MiB, so the summary is cut to `SUMMARY_LIMIT`
bytes, keeping the recap and the first failures whole and saying what was left out.

`HARNESS_GITHUB_REPORT=0` turns both off, so that of a matrix of jobs running the same
suite only one leg writes them (GitHub would show each annotation once per leg).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence

import msgspec

from harness.reports.location import failure_line, first_failure, relative_path
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.slim import printed
from harness.text import complain, markdown, truncate, workflow_data, workflow_property

__all__ = [
    "MAX_ANNOTATIONS",
    "SUMMARY_LIMIT",
    "SummaryWriter",
    "annotation_commands",
    "append_step_summary",
    "in_github",
    "publish",
    "reporting_enabled",
    "step_summary",
]

MAX_ANNOTATIONS = 10
"""Error annotations per run: GitHub shows only a few per step, so the rest stay in the log."""
CELL_LIMIT = 500
"""Characters of one text in the summary."""
SUMMARY_LIMIT = 1_000_000
"""Bytes of the job summary: GitHub refuses more than 1 MiB (1,048,576 bytes) a step."""
_MARK = {"passed": "✅", "failed": "❌", "errored": "❌", "skipped": "⏭️"}
"""A case's mark in the summary's table, its `checks` cell saying the same in words."""
MESSAGE_LIMIT = 2_000
"""Characters of an annotation's message."""


def step_summary(
    report: SuiteReport, artifacts: Sequence[str] = (), limit: int = SUMMARY_LIMIT
) -> str:
    """The Markdown summary: the recap, every failed check, then a table of the cases.

    Past `limit` bytes (UTF-8) the rest is left out, and a last line says how many failures
    and cases were not shown and where the full report is (`artifacts`, else the log).
    """
    status = "✅ all passed" if report.all_passed else f"❌ {report.failed} failed"
    head = [
        f"### harness: {_cell(report.suite)} ({_cell(report.mode)})",
        "",
        f"{report.passed}/{report.total} cases passed, {status}",
        "",
    ]
    failures = [case for case in report.cases if case.failing]
    failure_lines: list[str] = []
    for case in failures:
        problems = _problems(case)
        # One entry a case, its every failed check with it: a cut never splits a case.
        entry = [f"- **{_cell(case.name)}**: {_cell(problems[0])}"]
        entry += (f"  - {_cell(problem)}" for problem in problems[1:])
        failure_lines.append("\n".join(entry))
    # Failing cases first in the table too: they are what a cut must keep.
    ordered = failures + [case for case in report.cases if not case.failing]
    here = os.getcwd()
    rows = [
        f"| {_MARK[case.outcome]} | {_cell(case.name)} "
        f"| {_cell(relative_path(case.source, None, here))} | {_checks(case)} |"
        for case in ordered
    ]
    where = ", ".join(_cell(path) for path in artifacts) or "the job log"
    reserve = 400 + len(where.encode())
    budget = limit - reserve
    lines = list(head)
    size = sum(len(line.encode()) + 1 for line in lines)
    shown_failures = shown_rows = 0
    sections = [
        (["#### Failures", ""] if failure_lines else [], failure_lines),
        (["", "#### Cases", "", "| | case | fixture | checks |", "|---|---|---|---|"], rows),
    ]
    for number, (title, body) in enumerate(sections):
        title_size = sum(len(line.encode()) + 1 for line in title)
        if not body or size + title_size + len(body[0].encode()) + 1 > budget:
            continue  # a heading with nothing under it says nothing
        lines += title
        size += title_size
        full = True
        for line in body:
            cost = len(line.encode()) + 1
            if size + cost > budget:
                full = False
                break
            lines.append(line)
            size += cost
            if number == 0:
                shown_failures += line.startswith("- ")
            else:
                shown_rows += 1
        if not full:
            break  # the rest would only be the start of the next section
    left_failures, left_rows = len(failures) - shown_failures, len(rows) - shown_rows
    if left_failures or left_rows:
        lines += [
            "",
            f"_Not shown: {left_failures} failing case(s) of {len(failures)} in the failures and "
            f"{left_rows} of {len(rows)} case row(s): a job summary is limited to 1 MiB. "
            f"The full report is in {where}._",
        ]
    return "\n".join(lines) + "\n"


def append_step_summary(markdown: str, outputs: Sequence[str] = ()) -> None:
    """Append Markdown to the job summary when `GITHUB_STEP_SUMMARY` names one.

    Only a regular file is appended to, and never one of the run's `outputs` (a summary
    appended to the JSON report would break it): anything else (a FIFO, a device, a folder) is
    skipped with a warning, never waited on. A summary that cannot be written is reported on
    stderr; it never changes the verdict.
    """
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    if any(_same_file(path, output) for output in outputs):
        complain(f"{path}: GITHUB_STEP_SUMMARY is an output of this run: no job summary written")
        return
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        complain(f"{path}: cannot append the job summary: {exc.strerror or exc}")
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            complain(f"{path}: GITHUB_STEP_SUMMARY is not a regular file: no job summary written")
            return
        # Text reaching here is cleaned, but a lone surrogate must never cost the run.
        with os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace", closefd=False) as out:
            out.write(markdown)
    except OSError as exc:
        complain(f"{path}: cannot append the job summary: {exc.strerror or exc}")
    finally:
        os.close(fd)


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet): they are the same if named alike
        return os.path.realpath(first) == os.path.realpath(second)


def annotation_commands(report: SuiteReport, limit: int = MAX_ANNOTATIONS) -> list[str]:
    """`::error` workflow commands for the first `limit` failing cases.

    Each points at its fixture, relative to the repository root, and at the line of the
    expectation that failed first when it is known.
    """
    commands: list[str] = []
    for case in report.cases:
        if not case.failing:
            continue
        if len(commands) == limit:
            break
        failure = first_failure(case)
        message = failure.text()
        if failure.more:
            message += f" (+{failure.more} more)"
        where = f"file={workflow_property(relative_path(case.source))}"
        line = failure_line(case, failure)
        if line is not None:
            where += f",line={line}"
        title = workflow_property(truncate(case.name, CELL_LIMIT))
        commands.append(
            f"::error {where},title={title}::{workflow_data(truncate(message, MESSAGE_LIMIT))}"
        )
    return commands


def in_github() -> bool:
    """Whether a run writes the job summary or annotations: in GitHub Actions, or with a
    `GITHUB_STEP_SUMMARY` to append to."""
    return os.environ.get("GITHUB_ACTIONS") == "true" or bool(os.environ.get("GITHUB_STEP_SUMMARY"))


def reporting_enabled() -> bool:
    """Whether this job writes the summary and annotations (`HARNESS_GITHUB_REPORT`)."""
    flag = os.environ.get("HARNESS_GITHUB_REPORT", "1").strip().lower()
    return flag not in {"0", "false", "no", "off"}


def publish(
    report: SuiteReport,
    output_format: str,
    artifacts: Sequence[str] = (),
    others: Sequence[str] = (),
) -> None:
    """Append the job summary and emit annotations when running in GitHub Actions.

    `artifacts` are the reports written (the summary names them), `others` the run's other
    outputs and inputs: the summary is appended to none of them.
    """
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    if not in_github():
        return
    if not reporting_enabled():
        return
    append_step_summary(step_summary(report, artifacts), [*artifacts, *others])
    if in_actions:
        # Keep stdout parseable when it carries the JSON report.
        stream = sys.stderr if output_format == "json" else sys.stdout
        for command in annotation_commands(report):
            print(command, file=stream)
        stream.flush()


class SummaryWriter:
    """The job summary and the annotations: each case held slimmed (`slim.printed`), both
    written at the close (`publish`)."""

    def __init__(self) -> None:
        self._held: list[CaseReport] = []

    def add(self, case: CaseReport) -> None:
        """Hold what the summary and the annotations print of one finished case."""
        self._held.append(printed(case))

    def close(
        self,
        head: SuiteReport,
        output_format: str,
        artifacts: Sequence[str] = (),
        others: Sequence[str] = (),
    ) -> None:
        """`publish` the run `head` describes, with the cases held."""
        cases, self._held = tuple(self._held), []
        publish(msgspec.structs.replace(head, cases=cases), output_format, artifacts, others)


def _problems(case: CaseReport) -> list[str]:
    if case.error is not None:
        return [f"error: {case.error}"]
    failed = [f"{grade.check}: {grade.detail}" for grade in case.failed_grades]
    return failed or ["the case declares no check"]


def _checks(case: CaseReport) -> str:
    if case.error is not None:
        return "error"
    if case.skipped is not None:
        return "skipped"
    return f"{len(case.grades) - len(case.failed_grades)}/{len(case.grades)}"


def _cell(text: str) -> str:
    """Text that cannot break a Markdown table row or inject HTML, cut to `CELL_LIMIT`."""
    return markdown(text, CELL_LIMIT)

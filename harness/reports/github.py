"""GitHub Actions integration: the job summary and annotations on failing fixtures."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from harness.reports.model import CaseReport, SuiteReport
from harness.text import complain, markdown

if TYPE_CHECKING:
    from harness.reports.model import SuiteReport

__all__ = ["MAX_ANNOTATIONS", "annotation_commands", "append_step_summary", "step_summary"]

MAX_ANNOTATIONS = 10
"""Error annotations per run: GitHub shows only a few per step, so the rest stay in the log."""
CELL_LIMIT = 500
"""Characters of one text in the summary: GitHub caps a job summary at 1 MiB."""


def step_summary(report: SuiteReport) -> str:
    """A Markdown summary: a pipe table of cases, then each failed check."""
    status = "✅ all passed" if report.all_passed else f"❌ {report.failed} failed"
    lines = [
        f"### harness: {_cell(report.suite)} ({report.mode})",
        "",
        f"{report.passed}/{report.total} cases passed, {status}",
        "",
        "| | case | fixture | checks |",
        "|---|---|---|---|",
    ]
    for case in report.cases:
        mark = "✅" if case.passed else "❌"
        lines.append(f"| {mark} | {_cell(case.name)} | `{_cell(case.source)}` | {_checks(case)} |")
    failures = [case for case in report.cases if not case.passed]
    if failures:
        lines += ["", "#### Failures", ""]
        for case in failures:
            for problem in _problems(case):
                lines.append(f"- **{_cell(case.name)}**: {_cell(problem)}")
    return "\n".join(lines) + "\n"


def append_step_summary(markdown: str) -> None:
    """Append Markdown to the job summary when `GITHUB_STEP_SUMMARY` names one.

    A summary that cannot be written is reported on stderr; it never changes the verdict.
    """
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as file:
            file.write(markdown)
    except OSError as exc:
        complain(f"{path}: cannot append the job summary: {exc.strerror or exc}")


def annotation_commands(report: SuiteReport, limit: int = MAX_ANNOTATIONS) -> list[str]:
    """`::error` workflow commands for the first `limit` failing cases, at their fixture."""
    commands: list[str] = []
    for case in report.cases:
        if case.passed:
            continue
        if len(commands) == limit:
            break
        first = _problems(case)[0]
        file, title = _property(case.source), _property(case.name)
        commands.append(f"::error file={file},title={title}::{_data(first)}")
    return commands


def _problems(case: CaseReport) -> list[str]:
    if case.error is not None:
        return [f"error: {case.error}"]
    failed = [f"{grade.check}: {grade.detail}" for grade in case.failed_grades]
    return failed or ["the case declares no check"]


def _checks(case: CaseReport) -> str:
    if case.error is not None:
        return "error"
    return f"{len(case.grades) - len(case.failed_grades)}/{len(case.grades)}"


def _cell(text: str) -> str:
    """Text that cannot break a Markdown table row, cut to `CELL_LIMIT` characters."""
    return markdown(text, CELL_LIMIT)


def _data(text: str) -> str:
    """Escape a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """Escape a workflow command's property value."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def publish(report: SuiteReport, output_format: str) -> None:
    """Append the job summary and emit annotations when running in GitHub Actions."""
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    if not in_actions and not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    append_step_summary(step_summary(report))
    if in_actions:
        # Keep stdout parseable when it carries the JSON report.
        stream = sys.stderr if output_format == "json" else sys.stdout
        for command in annotation_commands(report):
            print(command, file=stream)

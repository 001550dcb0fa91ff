"""JUnit XML, built with junit-xml: one testsuite, one testcase per fixture.

The document is the common JUnit dialect (the Jenkins xUnit plugin's junit-10) that GitLab,
Jenkins and the GitHub test reporters read. Two flavors:

- `full` (the default) adds the testcase `file` and `line` attributes, which junit-10 does not
  declare but GitLab, dorny/test-reporter, mikepenz/action-junit-report and
  EnricoMi/publish-unit-test-result-action use to link a failure to its fixture line;
- `strict` leaves them out, for consumers that validate against junit-10 itself (Jenkins
  xUnit, some IDE importers).

junit-xml's `TestSuite` and `TestCase` build every element: the suite with its timestamp,
hostname and properties, each testcase with its failure, error or skip (message and body),
`file` and `line`, `system-out` and `system-err`. What it does not know is done here:

- names cleaned and unique after cleaning (`junit_names`);
- a failure's `message` names the first failed check, since several reporters show nothing
  else; its body lists every failed check;
- bodies are bounded, each cut after a fixed number of characters with a marker saying how
  many were cut (`DETAIL_LIMIT`, `BODY_LIMIT`, `OUTPUT_LIMIT`);
- observed text is cleaned before it reaches the library: ANSI sequences removed whole, other
  characters XML 1.0 forbids escaped visibly (junit-xml would delete them silently), and
  attachment markers broken up in `system-out` and `system-err` (`harness.text`);
- the attributes junit-xml gets wrong for a reader are set again (`_settle`), and the
  `<testsuites>` root is ours: junit-xml's own (`to_xml_report_string`) has no name, and the
  run time it gives is the cases' times summed, longer than a parallel run took and written
  with more decimals than junit-10 allows.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from junit_xml import TestCase, TestSuite

from harness.reports.location import (
    Failure,
    failure_line,
    first_failure,
    relative_path,
    repository_root,
)
from harness.reports.model import CaseReport, SuiteReport
from harness.text import (
    QUOTE_LIMIT,
    cut_middle,
    one_line,
    printable,
    quote,
    truncate,
    without_ansi,
    without_attachments,
    xml_safe,
)
from harness.version import __version__

__all__ = [
    "BODY_LIMIT",
    "DETAIL_LIMIT",
    "FLAVORS",
    "MESSAGE_LIMIT",
    "OUTPUT_LIMIT",
    "Mark",
    "junit_names",
    "to_junit_xml",
]

DETAIL_LIMIT = 4_000
"""Characters of one check detail in a failure's body, or of an error's body."""
BODY_LIMIT = 16_000
"""Characters of a failure's whole body (every failed check), past which it is cut."""
MESSAGE_LIMIT = 300
"""Characters of a failure's, an error's or a skip's one-line `message`."""
OUTPUT_LIMIT = 64_000
"""Characters of the call trace in `system-out` (its middle is cut), and of what the agent
printed to stdout (after the trace) and to stderr (`system-err`), each cut after."""
_DECLARATION = b"<?xml version='1.0' encoding='utf-8'?>\n"
FLAVORS = ("full", "strict")
"""`full`: testcase `file` and `line` attributes; `strict`: junit-10 exactly."""


class Mark(NamedTuple):
    """What a testcase says beyond its case: a baseline's flip, so CI test views show what
    changed since the baseline."""

    note: str
    """A line put first in the testcase's `system-err`."""
    message_prefix: str = ""
    """Put before its failure's message (a regression's `REGRESSED since the baseline: `)."""


def to_junit_xml(
    report: SuiteReport,
    *,
    git_commit: str | None = None,
    flavor: str = "full",
    hostname: str | None = None,
    marks: Sequence[Mark | None] | None = None,
) -> bytes:
    """The JUnit XML document of `report`: one testsuite, one testcase per fixture, each
    with its `marks` entry (one per case, in order), when given.

    Raises:
        ValueError: `flavor` is not one of `FLAVORS`.
    """
    if flavor not in FLAVORS:
        raise ValueError(f"unknown JUnit flavor {flavor!r}: choose one of {FLAVORS}")
    places = _Places(report.directory)
    classname = f"harness.{_name(report.suite)}"
    names = junit_names((case.name, case.source) for case in report.cases)
    if marks is None:
        marks = [None] * len(names)
    suite = TestSuite(
        _name(report.suite),
        [
            _testcase(case, name, classname, places if flavor == "full" else None, mark)
            for case, name, mark in zip(report.cases, names, marks, strict=True)
        ],
        hostname=_name(hostname if hostname is not None else _hostname()),
        timestamp=report.started_at or None,
        properties=_properties(report, git_commit),
        file=places.file(report.directory or "."),
    )
    element: ET.Element = suite.build_xml_doc()
    _settle(element, report)
    root = ET.Element(
        "testsuites",
        {
            "name": classname,
            **{key: element.get(key, "0") for key in ("tests", "failures", "errors", "time")},
        },
    )
    root.append(element)
    ET.indent(root)
    # Serialized to text, then encoded once: ElementTree writing bytes goes through a
    # TextIOWrapper whose non-default error handler makes each of its many writes slow.
    text = ET.tostring(root, encoding="unicode")
    document = _DECLARATION + text.encode("utf-8", "xmlcharrefreplace") + b"\n"
    # ElementTree writes a carriage return in text as it is, and XML readers turn CRLF into
    # LF; escaped, it reaches the reader. (ElementTree escapes one in an attribute itself.)
    return document.replace(b"\r", b"&#13;")


def junit_names(cases: Iterable[tuple[str, str]]) -> list[str]:
    """The testcase names of `(name, source)` pairs: cleaned, and unique after cleaning.

    Cleaning (ANSI removed, controls escaped) can make two names one, and whitespace is
    compared collapsed, as several reporters read it. Every name in such a collision, and
    only those, gets its fixture file name appended, `name [file.json]`: visible, and stable
    from run to run. Fixture files are unique in a suite, so that settles it.
    """
    pairs = list(cases)
    cleaned = [_name(name) for name, _ in pairs]
    keys = Counter(" ".join(name.split()) for name in cleaned)
    names = [
        f"{name} [{_name(os.path.basename(source))}]" if keys[" ".join(name.split())] > 1 else name
        for name, (_, source) in zip(cleaned, pairs, strict=True)
    ]
    counts = Counter(names)
    if len(counts) == len(names):
        return names
    # Only a name that already ends in another case's `[file.json]` gets here.
    return [
        f"{name} [{_name(source)}]" if counts[name] > 1 else name
        for name, (_, source) in zip(names, pairs, strict=True)
    ]


class _Places:
    """Fixture paths as the document shows them: relative to the repository root."""

    def __init__(self, directory: str) -> None:
        self.root = repository_root(os.path.abspath(directory or "."))
        self.here = os.getcwd()

    def file(self, path: str) -> str:
        return _name(relative_path(path, self.root, self.here))


def _testcase(
    case: CaseReport, name: str, classname: str, places: _Places | None, mark: Mark | None
) -> TestCase:
    """`case` as junit-xml's testcase; `places` is None in the `strict` flavor."""
    failure = None if case.passed or case.skipped is not None else first_failure(case)
    line = None if failure is None or places is None else failure_line(case, failure)
    stderr = without_attachments(xml_safe(case.stderr, OUTPUT_LIMIT))
    if mark is not None:  # JUnit keeps one system-err per testcase: the note joins the agent's
        stderr = f"{mark.note}\n{stderr}" if stderr else mark.note
    testcase = TestCase(
        name,
        classname=classname,
        elapsed_sec=max(case.duration, 0.0),
        stdout=_system_out(case),
        stderr=stderr or None,
        file=None if places is None else places.file(case.source),
        line=None if line is None else str(line),
    )
    if case.skipped is not None:  # reported as skipped with its reason, never as passed
        reason = one_line(xml_safe(case.skipped), MESSAGE_LIMIT) or "skipped"
        testcase.add_skipped_info(message=reason)
    elif failure is not None and case.error is not None:
        body = xml_safe(case.error, DETAIL_LIMIT)
        testcase.add_error_info(message=_message(case, failure), output=body, error_type="error")
    elif failure is not None:
        message = _message(case, failure)
        if mark is not None:
            message = mark.message_prefix + message
        body = "\n".join(
            f"✗ {xml_safe(grade.check)}: {xml_safe(grade.detail, DETAIL_LIMIT)}"
            for grade in case.failed_grades
        )
        # junit-xml drops a failure with neither message nor body: the message is never empty.
        testcase.add_failure_info(
            message=message, output=truncate(body, BODY_LIMIT) or message, failure_type="failure"
        )
    return testcase


def _message(case: CaseReport, failure: Failure) -> str:
    """One line: the first failed check and its detail (or the error), and how many more."""
    text = failure.text() if case.error is None else case.error or "the case errored"
    message = one_line(xml_safe(text), MESSAGE_LIMIT)
    return f"{message} (+{failure.more} more)" if failure.more else message


def _properties(report: SuiteReport, git_commit: str | None) -> dict[str, str]:
    properties = {"mode": report.mode, "harness_version": __version__}
    if git_commit:
        properties["git_commit"] = git_commit
    if report.interrupted:
        properties["interrupted"] = report.interrupted
    if report.stopped_early:
        properties["stopped_early"] = "exitfirst: stopped at the first failed or errored case"
    if report.selection is not None:
        properties["selection"] = report.selection
    return {name: xml_safe(value) for name, value in properties.items()}


def _settle(element: ET.Element, report: SuiteReport) -> None:
    """Set again what junit-xml writes of the suite in a way a reader would trip on.

    It writes `disabled`, which junit-10 does not declare; the suite's `time` as the cases'
    times summed; and no `time` at all on a testcase that took no measurable time.
    """
    element.attrib.pop("disabled", None)
    element.set("time", _seconds(report.duration, 3))
    for testcase, case in zip(element.iter("testcase"), report.cases, strict=True):
        testcase.set("time", _seconds(case.duration, 6))


def _system_out(case: CaseReport) -> str:
    """The call trace, then what the agent printed to stdout, each bounded."""
    out = _trace(case)
    if case.stdout:
        out += "\ncaptured stdout:\n" + without_attachments(xml_safe(case.stdout, OUTPUT_LIMIT))
    return out


def _trace(case: CaseReport) -> str:
    """The calls and the final response; past `OUTPUT_LIMIT`, the middle of the calls is cut."""
    record = case.record
    head = f"tool calls: {len(record.tool_calls)}"
    calls = "\n".join(
        f"  {index}. {call.name} {truncate(call.arguments, QUOTE_LIMIT)} -> "
        + (
            "(no result) [NO RESULT]"
            if call.result is None
            else f"{quote(call.result)} [{'ok' if call.success else 'FAILED'}]"
        )
        for index, call in enumerate(record.tool_calls, 1)
    )
    tail = (
        f"final response: {quote(record.final_response)}\n"
        f"tokens: {record.input_tokens} in, {record.output_tokens} out"
    )
    whole = without_attachments(
        xml_safe(f"{head}\n{calls}\n{tail}" if calls else f"{head}\n{tail}")
    )
    if len(whole) <= OUTPUT_LIMIT:
        return whole
    # Cleaned apart, so the cut falls in the calls and never in the final response.
    calls = without_attachments(xml_safe(calls))
    tail = without_attachments(xml_safe(tail))
    budget = max(OUTPUT_LIMIT - len(head) - len(tail) - 2, 200)
    return f"{head}\n{cut_middle(calls, budget)}\n{tail}"


def _name(text: str) -> str:
    """A name for an attribute: one line, ANSI removed, controls and surrogates escaped."""
    return xml_safe(printable(without_ansi(text)))


def _seconds(value: float, digits: int) -> str:
    return f"{max(value, 0.0):.{digits}f}"


def _hostname() -> str:
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().nodename)
    import socket

    return socket.gethostname()

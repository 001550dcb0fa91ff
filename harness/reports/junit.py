"""JUnit XML, written directly as text: one testsuite, one testcase per fixture.

The document is the common JUnit dialect (the Jenkins xUnit plugin's junit-10) that GitLab,
Jenkins and the GitHub test reporters read. Two flavors:

- `full` (the default) adds the testcase `file` and `line` attributes, which junit-10 does not
  declare but GitLab, dorny/test-reporter, mikepenz/action-junit-report and
  EnricoMi/publish-unit-test-result-action use to link a failure to its fixture line;
- `strict` leaves them out, for consumers that validate against junit-10 itself (Jenkins
  xUnit, some IDE importers).

Each testcase is rendered by `testcase_xml` on its own, so cases can be written as they
finish and the header (with the totals) assembled after. Everything observed is cleaned once,
here: ANSI sequences removed whole, other characters XML 1.0 forbids escaped visibly,
attachment markers broken up in `system-out` (`harness.text`). Names stay unique after
cleaning (`junit_names`). A failure's `message` names the first failed check, since several
reporters show nothing else; its body lists every failed check.

junit-xml, the library this module used to wrap, cost over 40 µs a case through its
ElementTree building and minidom pretty-printing; writing the text directly costs a few.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence

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
    "DETAIL_LIMIT",
    "FLAVORS",
    "MESSAGE_LIMIT",
    "OUTPUT_LIMIT",
    "JUnitContext",
    "junit_names",
    "suite_header",
    "testcase_xml",
    "to_junit_xml",
]

DETAIL_LIMIT = 4_000
"""Characters of one check detail or error message kept in a failure's body."""
MESSAGE_LIMIT = 300
"""Characters of a failure's one-line `message`."""
OUTPUT_LIMIT = 64_000
"""Characters of a testcase's system-out kept in the XML (its middle is cut)."""
FLAVORS = ("full", "strict")
"""`full`: testcase `file` and `line` attributes; `strict`: junit-10 exactly."""

_ATTRIBUTE = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\n": "&#10;",
        "\r": "&#13;",
        "\t": "&#9;",
    }
)
# Most texts need none of the work: a search in C finds the few that do.
_UNSAFE_NAME = re.compile(
    "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
).search
_SPECIAL_ATTRIBUTE = re.compile('[&<>"\n\r\t]').search
_SPECIAL_TEXT = re.compile("[&<>\r]").search


class JUnitContext:
    """What every testcase of one document shares: its classname, root folder and flavor."""

    __slots__ = ("classname", "flavor", "here", "root")

    def __init__(self, suite: str, directory: str, flavor: str = "full") -> None:
        if flavor not in FLAVORS:
            raise ValueError(f"unknown JUnit flavor {flavor!r}: choose one of {FLAVORS}")
        self.classname = _attribute(f"harness.{_name(suite)}")
        self.root = repository_root(os.path.abspath(directory or "."))
        self.here = os.getcwd()
        self.flavor = flavor

    def file(self, path: str) -> str:
        """`path` relative to the repository root, as an attribute value."""
        return _attribute(_name(relative_path(path, self.root, self.here)))


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


def to_junit_xml(
    report: SuiteReport,
    *,
    git_commit: str | None = None,
    flavor: str = "full",
    hostname: str | None = None,
) -> bytes:
    """The JUnit XML document of `report`: one testsuite, one testcase per fixture."""
    context = JUnitContext(report.suite, report.directory, flavor)
    names = junit_names((case.name, case.source) for case in report.cases)
    parts = [suite_header(report, report.cases, context, git_commit=git_commit, hostname=hostname)]
    parts += (
        testcase_xml(case, name, context) for case, name in zip(report.cases, names, strict=True)
    )
    parts.append("  </testsuite>\n</testsuites>\n")
    return "".join(parts).encode("utf-8")


def suite_header(
    report: SuiteReport,
    cases: Sequence[CaseReport],
    context: JUnitContext,
    *,
    git_commit: str | None = None,
    hostname: str | None = None,
) -> str:
    """The XML declaration, `<testsuites>`, `<testsuite>` and its properties, for `cases`."""
    errors = sum(case.error is not None for case in cases)
    skipped = sum(case.skipped is not None for case in cases)
    failures = sum(not case.passed for case in cases) - errors - skipped
    total, seconds = len(cases), _seconds(report.duration, 3)
    properties = [("mode", report.mode), ("harness_version", __version__)]
    if git_commit:
        properties.append(("git_commit", git_commit))
    if report.interrupted:
        properties.append(("interrupted", report.interrupted))
    if report.stopped_early:
        properties.append(
            ("stopped_early", "exitfirst: stopped at the first failed or errored case")
        )
    if report.selection is not None:
        properties.append(("selection", report.selection))
    host = hostname if hostname is not None else _hostname()
    suite = _name(report.suite)
    lines = [
        "<?xml version='1.0' encoding='utf-8'?>",
        f'<testsuites name="{_attribute(f"harness.{suite}")}" tests="{total}" '
        f'failures="{failures}" errors="{errors}" time="{seconds}">',
        f'  <testsuite name="{_attribute(suite)}" tests="{total}" failures="{failures}" '
        f'errors="{errors}" skipped="{skipped}" time="{seconds}"'
        + (f' timestamp="{_attribute(report.started_at)}"' if report.started_at else "")
        + f' hostname="{_attribute(_name(host))}"'
        f' file="{context.file(report.directory or ".")}">',
        "    <properties>",
        *(
            f'      <property name="{name}" value="{_attribute(xml_safe(value))}" />'
            for name, value in properties
        ),
        "    </properties>",
        "",
    ]
    return "\n".join(lines)


def testcase_xml(case: CaseReport, name: str, context: JUnitContext) -> str:
    """One `<testcase>` element, indented for its place in the document, ending in a newline.

    `name` is the case's entry of `junit_names`.
    """
    head = (
        f'    <testcase name="{_attribute(name)}" classname="{context.classname}" '
        f'time="{_seconds(case.duration, 6)}"'
    )
    if context.flavor == "full":
        head += f' file="{context.file(case.source)}"'
    outcome = ""
    if case.skipped is not None:  # reported as skipped with its reason, never as passed
        reason = _attribute(one_line(xml_safe(case.skipped), MESSAGE_LIMIT) or "skipped")
        outcome = f'      <skipped message="{reason}" />\n'
    elif case.error is not None or not case.grades or not all(g.passed for g in case.grades):
        failure = first_failure(case)
        if context.flavor == "full":
            line = failure_line(case, failure)
            if line is not None:
                head += f' line="{line}"'
        outcome = _outcome(case, failure)
    out = _trace(case)
    if case.stdout:  # what the agent printed, after the trace
        out += "\ncaptured stdout:\n" + without_attachments(xml_safe(case.stdout, OUTPUT_LIMIT))
    err = ""
    if case.stderr:
        captured = without_attachments(xml_safe(case.stderr, OUTPUT_LIMIT))
        err = f"      <system-err>{_text(captured)}</system-err>\n"
    return f"{head}>\n{outcome}      <system-out>{_text(out)}</system-out>\n{err}    </testcase>\n"


def _outcome(case: CaseReport, failure: Failure) -> str:
    text = failure.text() if case.error is None else case.error or "the case errored"
    message = one_line(xml_safe(text), MESSAGE_LIMIT)
    if failure.more:
        message += f" (+{failure.more} more)"
    if case.error is not None:
        body = xml_safe(case.error, DETAIL_LIMIT)
        kind = "error"
    else:
        failed = case.failed_grades
        body = "\n".join(
            f"✗ {xml_safe(grade.check)}: {xml_safe(grade.detail, DETAIL_LIMIT)}" for grade in failed
        )
        body = body or message
        kind = "failure"
    return f'      <{kind} type="{kind}" message="{_attribute(message)}">{_text(body)}</{kind}>\n'


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
    if not _UNSAFE_NAME(text):
        return text
    return xml_safe(printable(without_ansi(text)))


def _attribute(text: str) -> str:
    return text.translate(_ATTRIBUTE) if _SPECIAL_ATTRIBUTE(text) else text


def _text(text: str) -> str:
    if not _SPECIAL_TEXT(text):
        return text
    # Chained replaces run in C a whole string at a time: faster than translate per char.
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\r", "&#13;")


def _seconds(value: float, digits: int) -> str:
    return f"{max(value, 0.0):.{digits}f}"


def _hostname() -> str:
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().nodename)
    import socket

    return socket.gethostname()

"""JUnit XML, built with junit-xml behind this one adapter.

junit-xml 1.9 has traps this module steps around, each pinned by a test:

- a `TestCase` with `elapsed_sec=0` gets no `time` attribute: every testcase's `time` is set
  here, `0.000` included;
- a failure added with an empty message and output is silently dropped, so the case would
  count as passed: messages here are never empty;
- a `datetime` timestamp is written with a space instead of `T`: timestamps go in as ISO
  strings;
- characters illegal in XML 1.0 (NUL, ESC and other controls, lone surrogates) are stripped
  only after serialisation, and ANSI sequences leave residue: strings are cleaned before they
  reach the library, with ANSI sequences removed whole and other illegal characters escaped
  visibly (`harness.text.xml_safe`).

Very long texts are cut with the visible marker of `harness.text.truncate`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from junit_xml import TestCase, TestSuite

from harness.reports.model import CaseReport, SuiteReport
from harness.text import quote, xml_safe
from harness.version import __version__

__all__ = ["DETAIL_LIMIT", "OUTPUT_LIMIT", "to_junit_xml"]

DETAIL_LIMIT = 4_000
"""Characters of one check detail or error message kept in the XML."""
OUTPUT_LIMIT = 64_000
"""Characters of a testcase's system-out kept in the XML."""


def to_junit_xml(report: SuiteReport, *, git_commit: str | None = None) -> bytes:
    """The JUnit XML document of `report`: one testsuite, one testcase per fixture."""
    properties = {"mode": report.mode, "harness_version": __version__}
    if git_commit:
        properties["git_commit"] = git_commit
    if report.interrupted:
        properties["interrupted"] = report.interrupted
    if report.stopped_early:
        properties["stopped_early"] = "exitfirst: stopped at the first failed or errored case"
    if report.selection is not None:
        properties["selection"] = xml_safe(report.selection)
    suite = TestSuite(
        xml_safe(report.suite),
        [_testcase(report.suite, case) for case in report.cases],
        timestamp=report.started_at or None,
        properties=properties,
        file=xml_safe(report.directory),
    )
    element = suite.build_xml_doc()
    # junit-xml adds `disabled`, which the common junit-10 schema does not define.
    element.attrib.pop("disabled", None)
    element.set("time", _seconds(report.duration))
    for case_element, case in zip(element.iter("testcase"), report.cases, strict=True):
        case_element.set("time", _seconds(case.duration))
    root = ET.Element(
        "testsuites",
        {
            "name": f"harness.{xml_safe(report.suite)}",
            "tests": str(report.total),
            "failures": element.get("failures", "0"),
            "errors": element.get("errors", "0"),
            "time": _seconds(report.duration),
        },
    )
    root.append(element)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def _testcase(suite: str, case: CaseReport) -> TestCase:
    testcase = TestCase(
        xml_safe(case.name),
        classname=f"harness.{xml_safe(suite)}",
        elapsed_sec=case.duration,
        stdout=_trace(case),
        file=xml_safe(case.source),
    )
    if case.error is not None:
        message = xml_safe(case.error, DETAIL_LIMIT) or "the case errored"
        testcase.add_error_info(message=message, output=message, error_type="error")
    elif not case.passed:
        failed = case.failed_grades
        message = f"{len(failed)} of {len(case.grades)} checks failed"
        if not case.grades:
            message = "the case declares no check"
        body = "\n".join(
            f"✗ {xml_safe(grade.check)}: {xml_safe(grade.detail, DETAIL_LIMIT)}" for grade in failed
        )
        testcase.add_failure_info(message=message, output=body or message, failure_type="failure")
    return testcase


def _trace(case: CaseReport) -> str:
    record = case.record
    lines = [f"tool calls: {len(record.tool_calls)}"]
    for index, call in enumerate(record.tool_calls, 1):
        status = "ok" if call.success else "FAILED"
        if call.result is None:
            result, status = "(no result)", "NO RESULT"
        else:
            result = quote(call.result)
        lines.append(f"  {index}. {call.name} {call.arguments} -> {result} [{status}]")
    lines.append(f"final response: {quote(record.final_response)}")
    lines.append(f"tokens: {record.input_tokens} in, {record.output_tokens} out")
    return xml_safe("\n".join(lines), OUTPUT_LIMIT)


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"

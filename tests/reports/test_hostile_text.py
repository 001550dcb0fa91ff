"""Arbitrary observed text, lone surrogates included, thrown at every artifact writer.

Whatever a case's name, error, check detail, tool call or response holds, each writer returns
without raising, and each artifact stays well-formed: the JUnit XML parses and validates (both
flavors), the JSON report decodes, the job summary is UTF-8 with no raw HTML, and every
annotation is one workflow command on one line that no `::` can extend.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.grading.result import GradeResult
from harness.reports.github import annotation_commands, step_summary
from harness.reports.junit import to_junit_xml
from harness.reports.model import CaseReport, SuiteReport
from harness.reports.table import render_table
from harness.reports.writers import to_json
from tests.builders import record

DATA = Path(__file__).resolve().parents[1] / "data"
SCHEMA = xmlschema.XMLSchema(str(DATA / "junit.xsd"))
JENKINS = xmlschema.XMLSchema(str(DATA / "junit-10.xsd"))

# Every code point, lone surrogates and controls included, with the dangerous snippets
# (ANSI, workflow commands, attachment markers, HTML) mixed in often enough to be tried.
SNIPPETS = st.sampled_from(
    [
        "\x1b[31m",
        "\x1b]0;t\x07",
        "::error::",
        "\n::stop-commands::x\n",
        "[[ATTACHMENT|/etc/x]]",
        "<script>",
        "]]>",
        "&amp;",
        "|",
        "`",
        "\ud800",
        "\udfff",
        "\x00",
        "\r\n",
        "%0A",
        "\ufffe",
    ]
)
TEXT = st.lists(
    st.one_of(st.text(st.characters(codec=None), max_size=12), SNIPPETS), max_size=6
).map("".join)


@st.composite
def reports(draw: st.DrawFn) -> SuiteReport:
    cases = []
    for index in range(draw(st.integers(1, 3))):
        grades = tuple(
            GradeResult(check=draw(TEXT), passed=draw(st.booleans()), detail=draw(TEXT))
            for _ in range(draw(st.integers(0, 3)))
        )
        calls = tuple(
            (draw(TEXT), draw(TEXT), draw(TEXT), draw(st.booleans()))
            for _ in range(draw(st.integers(0, 2)))
        )
        cases.append(
            CaseReport(
                name=draw(TEXT),
                source=f"evals/s/{index}{draw(TEXT).replace('/', '')[:8]}.json",
                grades=grades,
                error=draw(st.one_of(st.none(), TEXT)),
                record=record(draw(TEXT), calls),
            )
        )
    return SuiteReport(
        suite=draw(TEXT) or "s", directory="evals/s", mode="replay", cases=tuple(cases)
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reports())
def test_every_artifact_stays_well_formed(report: SuiteReport) -> None:
    """No writer raises, and every artifact parses as what it claims to be."""
    for flavor, schema in (("full", SCHEMA), ("strict", JENKINS)):
        xml = to_junit_xml(report, git_commit="abc", flavor=flavor)
        root = ET.fromstring(xml)
        schema.validate(xml.decode())
        names = [(case.get("classname"), case.get("name")) for case in root.iter("testcase")]
        assert len(set(names)) == len(report.cases)
        for out in root.iter("system-out"):
            assert not re.search(r"\[\[(ATTACHMENT|PROPERTY)\|", out.text or "", re.IGNORECASE)
    document = json.loads(to_json(report))
    assert document["total"] == len(report.cases)
    summary = step_summary(report)
    summary.encode("utf-8")
    assert "<" not in summary
    assert "\x1b" not in summary
    for command in annotation_commands(report):
        command.encode("utf-8")
        assert "\n" not in command
        assert "\r" not in command
        assert command.startswith("::error file=")
        assert "::" not in command.split("::", 2)[2]
    table = render_table(report)
    table.encode("utf-8")
    assert "\x1b" not in table
    assert "\r" not in table
    lines = table.splitlines()
    assert all(line == line.rstrip() for line in lines)
    rows = [line for line in lines if line[:1] in "✓✗-" and line[1:2] == " "]
    assert len(rows) == len(report.cases)  # one line per case, whatever its name holds

"""The HTML report: escaping, its Content-Security-Policy, what a case shows, its size bounds."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.grading.result import GradeResult
from harness.messages import RecordedCall
from harness.recording import RunRecord
from harness.reports import html
from harness.reports.document import ReportDocument, to_document
from harness.reports.model import CaseReport, SuiteReport
from tests.builders import echo_trace, record
from tests.conftest import WriteFixture

HOSTILE = '</script><script>window.pwned=1</script><img src=x onerror="pwned()">&amp;\u2028'


def case(name: str = "c", *, passed: bool = True, **changes: Any) -> CaseReport:
    grade = GradeResult(check='response_contains("hello")', passed=passed, detail="seen")
    fields: dict[str, Any] = {"name": name, "source": "missing.json", "grades": (grade,)}
    fields["record"] = record("hello", (("echo", '{"message":"hi"}', "hi", True),))
    return CaseReport(**(fields | changes))


def document(*cases: CaseReport) -> ReportDocument:
    report = SuiteReport(suite="s", directory="evals/s", mode="replay", cases=cases)
    return to_document(report, git_commit="abc123")


def data_of(page: str) -> dict[str, Any]:
    """The case data the page embeds."""
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page)
    assert match is not None
    loaded: dict[str, Any] = json.loads(match[1])
    return loaded


def hashed(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_embedded_json_holds_no_markup_and_reads_back() -> None:
    """No `<`, `>`, `&` or line separator survives in the embedded JSON; it decodes the same."""
    text = html.embedded_json({"t": HOSTILE})
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == {"t": HOSTILE}


def test_the_policy_allows_only_the_page_own_script_and_style() -> None:
    """The CSP names the hashes of the one inline script and style, and nothing else loads."""
    page = html.render_html(document(case()))
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert csp is not None
    policy = csp[1].replace("&#x27;", "'")
    script = page.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    assert policy.startswith("default-src 'none'; ")
    assert f"script-src {hashed(script)};" in policy
    assert f"style-src {hashed(style)};" in policy


def test_hostile_text_never_becomes_markup() -> None:
    """A case's name, detail and response stay text: the page holds no tag of theirs."""
    grade = GradeResult(check="response_contains", passed=False, detail=HOSTILE)
    hostile = case(HOSTILE, grades=(grade,), record=record(HOSTILE), error=None)
    page = html.render_html(document(hostile), run_id="x" * 64)
    assert "window.pwned" not in page.split('id="report-data">', 1)[0]
    assert page.count("<script") == 2  # the data and the page's own script
    assert "<img" not in page
    (shown,) = data_of(page)["cases"]
    assert shown["n"] == HOSTILE
    assert HOSTILE in shown["f"]


def test_the_header_escapes_and_counts() -> None:
    """The header states the verdict and each count, escaped."""
    errored = case("e", error="boom", grades=())
    skipped = case("k", skipped="later", grades=())
    page = html.render_html(document(case("p"), case("f", passed=False), errored, skipped))
    header = page.split('<header id="summary">', 1)[1].split("</header>", 1)[0]
    assert "✗ FAILED" in header
    for count in ("1 passed", "1 failed", "1 errored", "1 skipped"):
        assert f'<span class="word">{count}</span>' in header
    assert "abc123" in header


def test_failing_and_errored_cases_come_first() -> None:
    """The list starts with failed, then errored, then skipped, then passed cases."""
    cases = (case("p"), case("k", skipped="later", grades=()), case("e", error="boom"))
    page = html.render_html(document(*cases, case("f", passed=False)))
    assert [item["n"] for item in data_of(page)["cases"]] == ["f", "e", "k", "p"]


def test_a_check_names_the_fixture_line_of_its_expectation(write_fixture: WriteFixture) -> None:
    """Each check carries the fixture file and the line its expectation stands on."""
    path = write_fixture("a.json", json.dumps(echo_trace(), indent=2))
    grade = GradeResult(check='tools_used("echo")', passed=False, detail="not called")
    page = html.render_html(document(case(source=str(path), grades=(grade,))))
    (check,) = data_of(page)["cases"][0]["x"]["ch"]
    lines = path.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"tools_used"' in text) + 1
    assert lines[line - 1].strip() == '"echo"'
    assert check["at"].endswith(f"a.json:{line}")


def test_the_timeline_tells_the_run_in_order(write_fixture: WriteFixture) -> None:
    """User input, the reply asking for the tool, the call with its result, then the answer."""
    path = write_fixture("a.json", echo_trace())
    page = html.render_html(document(case(source=str(path))))
    timeline = data_of(page)["cases"][0]["x"]["tl"]
    assert [item["k"] for item in timeline] == ["user", "ask", "call", "model", "final"]
    assert timeline[0]["t"] == "Echo hello for me"
    assert (timeline[2]["name"], timeline[2]["r"], timeline[2]["ok"]) == ("echo", "hi", True)


def test_each_call_carries_its_timing_and_an_unknown_one_stays_unknown() -> None:
    """A call's start and duration reach the timeline as recorded; unknown ones as null."""
    timed = RecordedCall(
        name="echo", arguments="{}", result="a", success=True, started_s=0.25, duration_s=0.5
    )
    untimed = RecordedCall(name="echo", arguments="{}", result=None, success=False)
    run = RunRecord(final_response="done", tool_calls=(timed, untimed))
    (shown,) = data_of(html.render_html(document(case(record=run))))["cases"]
    calls = [item for item in shown["x"]["tl"] if item["k"] == "call"]
    assert [(item["at"], item["dur"]) for item in calls] == [(0.25, 0.5), (None, None)]


def test_fixture_text_is_redacted_as_recorded_text_is(write_fixture: WriteFixture) -> None:
    """A credential in a user input read from the fixture is cut like any report text."""
    secret = "api_key=Zk3mQ9vT2xW7pL4nR8yB1cD6"
    trace = echo_trace()
    trace["turns"][0]["user_input"] = f"use {secret}"
    page = html.render_html(document(case(source=str(write_fixture("a.json", trace)))))
    assert "Zk3mQ9vT2xW7pL4nR8yB1cD6" not in page
    assert "[REDACTED]" in data_of(page)["cases"][0]["x"]["tl"][0]["t"]


def test_each_text_is_cut_to_the_limit() -> None:
    """A response longer than the limit is cut, saying how much was left out."""
    long = case(record=record("x" * (html.TEXT_LIMIT * 3)))
    (shown,) = data_of(html.render_html(document(long)))["cases"]
    final = shown["x"]["tl"][-1]["t"]
    assert len(final) < html.TEXT_LIMIT + 100
    assert f"truncated {html.TEXT_LIMIT * 2} chars" in final


def test_cases_past_the_bounds_are_listed_short_or_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past the bounds, cases lose their details, then their line; the page says so."""
    monkeypatch.setattr(html, "FULL_CASES", 2)
    monkeypatch.setattr(html, "LISTED_CASES", 3)
    page = html.render_html(document(*(case(f"c{n}") for n in range(5))))
    listed = data_of(page)["cases"]
    assert [("x" in item) for item in listed] == [True, True, False]
    assert "2 more cases are not listed" in page
    assert "Details are shown for the first 2 of the 3 cases listed" in page


def test_the_detail_budget_bounds_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the details reach the budget, the following cases are listed without them."""
    monkeypatch.setattr(html, "DETAIL_BUDGET", 1)
    listed = data_of(html.render_html(document(case("a"), case("b"))))["cases"]
    assert [("x" in item) for item in listed] == [True, False]


def test_the_page_names_its_run() -> None:
    """The page carries the run id it was drawn from, for the trend page to link to."""
    page = html.render_html(document(case()), run_id="ab" * 32)
    assert f'<meta name="harness-run" content="{"ab" * 32}">' in page


def test_pages_beside_finds_reports_by_run(tmp_path: Path) -> None:
    """Only pages that name a run are found, by that run; the trend page itself is skipped."""
    (tmp_path / "one.html").write_text(html.render_html(document(case()), run_id="cd" * 32))
    (tmp_path / "other.html").write_text("<html>no run here</html>")
    (tmp_path / "trend.html").write_text(html.render_html(document(case()), run_id="ef" * 32))
    assert html.pages_beside(str(tmp_path / "trend.html")) == {"cd" * 32: "one.html"}


def test_write_html_refuses_what_is_not_a_report(tmp_path: Path) -> None:
    """Bytes that are not a JSON report are an artifact error, and no page is written."""
    from harness.errors import ArtifactError

    with pytest.raises(ArtifactError, match="not a harness JSON report"):
        html.write_html(str(tmp_path / "r.html"), b"[1, 2]")
    assert not (tmp_path / "r.html").exists()


def test_the_page_parts_ship_with_the_package() -> None:
    """The skeleton, style and script are read from the package's data."""
    assert "$data" in html.page_part("report.html")
    assert "textContent" in html.page_part("report.js")
    assert "--fail" in html.page_part("style.css")


def test_pages_beside_never_waits_on_a_fifo(tmp_path: Path) -> None:
    """A FIFO named like a page is passed over, not opened for reading until a writer comes."""
    import os

    os.mkfifo(tmp_path / "stuck.html")
    (tmp_path / "one.html").write_text(html.render_html(document(case()), run_id="cd" * 32))
    assert html.pages_beside(str(tmp_path / "trend.html")) == {"cd" * 32: "one.html"}


def test_a_case_with_many_calls_keeps_a_bounded_timeline() -> None:
    """Past the limit of entries, the timeline stops and says how many it left out."""
    from harness.reports.story import ITEMS_LIMIT

    calls = tuple(("echo", "{}", "r", True) for _ in range(ITEMS_LIMIT * 2))
    (shown,) = data_of(html.render_html(document(case(record=record("done", calls)))))["cases"]
    timeline = shown["x"]["tl"]  # a note (no fixture file), the calls, the final response
    assert len(timeline) == ITEMS_LIMIT + 2
    assert timeline[-2]["t"].startswith(f"{ITEMS_LIMIT + 1} more entries left out")
    assert timeline[-1] == {"k": "final", "t": "done"}


def test_past_the_limit_failed_checks_are_kept_first() -> None:
    """With more checks than the page holds, every failed one is among those kept."""
    from harness.reports.story import ITEMS_LIMIT

    grades = [GradeResult(check=f"g{n}", passed=n % 50 != 49, detail="d") for n in range(500)]
    (shown,) = data_of(html.render_html(document(case(grades=tuple(grades)))))["cases"]
    kept = shown["x"]["ch"]
    assert len(kept) == ITEMS_LIMIT
    assert shown["x"]["chm"] == 500 - ITEMS_LIMIT
    assert [check["c"] for check in kept if not check["ok"]] == [
        f"g{n}" for n in range(49, 500, 50)
    ]

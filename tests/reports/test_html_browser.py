"""The HTML report in a real browser: headless Chromium (the system's) driven by Playwright.

Each page is drawn by `harness run --html` from a suite made here: cases that pass, fail,
error and are skipped, fixtures whose text is markup and script, a wire agent's requests, an
agent's captured output, and 10,000 cases. Every request the page makes is routed and
refused (the page itself aside), and screenshots of the main views are saved. Run by
`nox -s browser`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.builders import TWO_ECHOES, calls_step, echo_trace, text_step

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent.parent
CHROMIUM = os.environ.get("HARNESS_CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(os.environ.get("HARNESS_SCREENSHOTS", REPO / "artifacts" / "browser"))
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
INJECTION = (
    '</script><script>window.pwned = "script"</script>\u2028'
    "<img src=https://example.com/x.png onerror=\"window.pwned = 'img'\">&amp;"
)
BIG = 10_000


def run(folder: Path, name: str, suite: dict[str, Any], *extra: str) -> tuple[Path, dict[str, Any]]:
    """Write `suite` (file name -> fixture), run it with `--json` and `--html`; both outputs."""
    (folder / name).mkdir()
    for file, fixture in suite.items():
        (folder / name / file).write_text(json.dumps(fixture, indent=2), encoding="utf-8")
    page, report = folder / f"{name}.html", folder / f"{name}.json"
    argv = ["run", "--suite", name, "--json", report.name, "--html", page.name, *extra]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "harness", *argv], cwd=folder, env=env, capture_output=True
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    return page, json.loads(report.read_text(encoding="utf-8"))


def mixed_suite() -> dict[str, Any]:
    hostile_turns = [{"user_input": INJECTION, "steps": [text_step(INJECTION)]}]
    no_answer = [{"user_input": "echo hi", "steps": [calls_step(("echo", {"message": "hi"}))]}]
    return {
        "a_passes.json": echo_trace(model_name="passes"),
        "b_fails.json": echo_trace(
            model_name="fails", expects={"tools_used": ["echo"], "response_contains": ["nope"]}
        ),
        "c_errors.json": echo_trace(model_name="errors", turns=no_answer),
        "d_skipped.json": echo_trace(model_name="skipped", skip="waiting on the tool's fix"),
        "e_hostile.json": echo_trace(
            model_name="hostile <b>name</b>",
            turns=hostile_turns,
            expects={"response_contains": [INJECTION + "!"]},
        ),
    }


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Each report's page and its JSON report, drawn once for the module."""
    folder = tmp_path_factory.mktemp("pages")
    big = {f"c{n:05d}.json": echo_trace(model_name=f"case-{n:05d}") for n in range(BIG)}
    for n in range(0, BIG, 1000):
        big[f"c{n:05d}.json"]["expects"] = {"response_contains": ["absent"]}
    output = {
        "printer.json": echo_trace(model_name="printer"),
        "quiet.json": echo_trace(model_name="quiet"),
    }
    wire_expects = {"tools_used": ["echo"], "response_contains": ["hello"]}
    wire = {"echo.json": echo_trace(model_name="over-the-wire", expects=wire_expects)}
    timed_expects = {"exact_tool_calls": 2}
    timed = {
        "two.json": echo_trace(model_name="two-echoes", turns=TWO_ECHOES, expects=timed_expects)
    }
    return {
        "timed": run(folder, "timed", timed),
        "mixed": run(folder, "mixed", mixed_suite()),
        "wire": run(folder, "wire", wire, "--agent", "tests.wire_agents:factory"),
        "output": run(folder, "output", output, "--agent", "tests.contained_agents:misbehaving"),
        "big": run(folder, "big", big),
    }


def expect(target: Any) -> Any:
    """Playwright's `expect`, imported when a test runs: the default pytest run (which
    deselects these tests) still collects this module, without Playwright installed."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(target)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


class Opened:
    """A page open in the browser, with every request it tried to make beyond itself."""

    def __init__(self, browser: Browser, path: Path, anchor: str = "") -> None:
        self.url = path.as_uri()
        self.refused: list[str] = []
        self.errors: list[str] = []
        self.context = browser.new_context(viewport={"width": 1200, "height": 900})
        self.context.route("**/*", self._route)
        self.page: Page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(self.url + anchor)

    def _route(self, route: Route) -> None:
        if route.request.url.split("#")[0] == self.url:
            route.continue_()
        else:
            self.refused.append(route.request.url)
            route.abort()

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)

    def close(self) -> None:
        assert self.refused == []
        assert self.errors == []
        self.context.close()


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Any]:
    opened: list[Opened] = []

    def open_(path: Path, anchor: str = "") -> Opened:
        opened.append(Opened(browser, path, anchor))
        return opened[-1]

    yield open_
    for page in opened:
        page.close()


def rows(page: Page) -> list[str]:
    return page.locator("#cases > li .name").all_text_contents()


def test_the_header_states_the_json_report(pages: Any, open_page: Any) -> None:
    """Verdict and counts as the JSON report has them; nothing requested beyond the page."""
    path, report = pages["mixed"]
    page = open_page(path).page
    expect(page.locator(".verdict")).to_have_text("✗ FAILED")
    counts = page.locator(".counts").text_content() or ""
    for word, number in (("passed", 1), ("failed", 2), ("errored", 1), ("skipped", 1)):
        assert f"{number} {word}" in counts
    shown = (report["passed"], report["failed"] - report["errored"], report["errored"])
    assert (*shown, report["skipped"]) == (1, 2, 1, 1)
    open_page(path).shot("report")


def test_failing_and_errored_cases_come_first_and_filter(pages: Any, open_page: Any) -> None:
    """The list starts with the failing cases; unticking a status hides its cases."""
    path, report = pages["mixed"]
    page = open_page(path).page
    assert rows(page) == ["fails", "hostile <b>name</b>", "errors", "skipped", "passes"]
    assert {case["name"] for case in report["cases"]} == set(rows(page))
    page.get_by_label("passed (1)").uncheck()
    page.get_by_label("skipped (1)").uncheck()
    assert rows(page) == ["fails", "hostile <b>name</b>", "errors"]
    expect(page.locator("#shown")).to_contain_text("Showing 3 of 3 matching cases")


def test_search_finds_a_case_by_its_text(pages: Any, open_page: Any) -> None:
    """Searching a text only a failed check's detail holds finds that case."""
    path, _ = pages["mixed"]
    page = open_page(path).page
    page.fill("#search", "ReplayProvider")
    expect(page.locator("#cases > li")).to_have_count(1)
    assert rows(page) == ["errors"]


def test_an_opened_failing_case_shows_its_story(pages: Any, open_page: Any) -> None:
    """Timeline, checks with their detail and fixture line, as the JSON report has them."""
    path, report = pages["mixed"]
    opened = open_page(path)
    page = opened.page
    page.locator("#case-fails > summary").click()
    case = next(case for case in report["cases"] if case["name"] == "fails")
    body = page.locator("#case-fails .body")
    expect(body.locator(".timeline .who")).to_have_text(
        ["user", "model asks for tools", "tool call", "model reply", "final response"]
    )
    expect(body.locator(".timeline")).to_contain_text(case["tool_calls"][0]["result"])
    for grade in case["grades"]:
        check = body.locator("ul.checks > li", has_text=grade["check"])
        expect(check).to_contain_text(grade["detail"])
        expect(check).to_contain_text("passed" if grade["passed"] else "failed")
    fixture = (path.parent / "mixed" / "b_fails.json").read_text().splitlines()
    line = next(n for n, text in enumerate(fixture, 1) if '"response_contains"' in text) + 1
    expect(body.locator("ul.checks")).to_contain_text(f"at mixed/b_fails.json:{line}")
    opened.shot("failing-case")


def test_the_keyboard_alone_opens_a_case_and_filters(pages: Any, open_page: Any) -> None:
    """Space on a status box filters; Enter on a case opens it."""
    path, _ = pages["mixed"]
    page = open_page(path).page
    page.get_by_label("passed (1)").focus()
    page.keyboard.press("Space")
    assert "passes" not in rows(page)
    page.locator("#case-errors > summary").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#case-errors .body")).to_contain_text("requested more LLM responses")


def test_an_anchor_opens_its_case(pages: Any, open_page: Any) -> None:
    """`#case-<name>` opens that case, even one the filters hid."""
    path, _ = pages["mixed"]
    page = open_page(path, "#case-passes").page
    expect(page.locator("#case-passes")).to_have_attribute("open", "")
    expect(page.locator("#case-passes .body")).to_contain_text("Echo hello for me")


def test_injected_markup_stays_text(pages: Any, open_page: Any) -> None:
    """The injection is shown as written; its script never runs, its image never loads."""
    path, report = pages["mixed"]
    opened = open_page(path)
    page = opened.page
    name = "hostile <b>name</b>"
    page.locator("#cases .name", has_text=name).click()
    body = page.locator("li.case", has_text=name).locator(".body")
    expect(body.locator(".timeline pre").first).to_have_text(INJECTION)
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("img").count() == 0
    assert page.locator("b").count() == 0
    case = next(case for case in report["cases"] if case["name"] == name)
    assert case["final_response"] == INJECTION
    opened.shot("injection")


def test_wire_requests_are_shown_when_opened(pages: Any, open_page: Any) -> None:
    """The requests sent over the wire are collapsed until opened, then as the JSON has them."""
    path, report = pages["wire"]
    opened = open_page(path)
    page = opened.page
    page.locator("#case-over-the-wire > summary").click()
    requests = page.locator("#case-over-the-wire details.more", has_text="Requests sent")
    (case,) = report["cases"]
    assert case["passed"] is True
    expect(requests.locator("summary")).to_have_text(
        f"Requests sent over the wire ({len(case['requests'])})"
    )
    expect(requests.locator("pre")).to_have_count(0)  # built when opened
    requests.locator("summary").click()
    expect(requests.locator("pre")).to_have_count(len(case["requests"]))
    sent = json.loads(requests.locator("pre").first.text_content() or "")
    assert sent == case["requests"][0]
    opened.shot("wire-requests")


TIMING = re.compile(
    r"start (unknown|\+([0-9.]+) (ms|s)) · (duration|round trip) (unknown|([0-9.]+) (ms|s))"
)


def shown_timing(text: str) -> tuple[float | None, float | None]:
    """A call's start and duration in seconds, to the microsecond the JSON report keeps, as the
    page shows them (None: unknown)."""
    match = TIMING.fullmatch(text)
    assert match is not None, text
    start = None if match[2] is None else round(float(match[2]) / _UNIT[match[3]], 6)
    took = None if match[6] is None else round(float(match[6]) / _UNIT[match[7]], 6)
    return start, took


_UNIT = {"ms": 1000, "s": 1}


def call_timings(page: Page, case: str) -> list[tuple[float | None, float | None]]:
    page.locator(f"#case-{case} > summary").click()
    shown = page.locator(f"#case-{case} .timeline li.call .timing").all_text_contents()
    return [shown_timing(text) for text in shown]


def test_each_call_shows_its_timing_as_the_json_report_has_it(pages: Any, open_page: Any) -> None:
    """Each call's start and duration, in call order, to the microsecond the JSON keeps."""
    path, report = pages["timed"]
    opened = open_page(path)
    (case,) = report["cases"]
    recorded = [(call["started_s"], call["duration_s"]) for call in case["tool_calls"]]
    assert len(recorded) == 2
    shown = call_timings(opened.page, "two-echoes")
    assert shown == recorded
    opened.shot("timed-calls")


def test_a_call_without_a_known_timing_shows_it_unknown(
    pages: Any, open_page: Any, tmp_path: Path
) -> None:
    """A wire call is a round trip; one whose report holds no duration says so, never 0."""
    _, report = pages["wire"]
    (call,) = report["cases"][0]["tool_calls"]
    assert call["observed"] == "wire"
    del call["duration_s"]
    source, page_path = tmp_path / "untimed.json", tmp_path / "untimed.html"
    source.write_text(json.dumps(report), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "harness", "report", "--html", str(page_path), str(source)]
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    page = open_page(page_path).page
    assert call_timings(page, "over-the-wire") == [(call["started_s"], None)]
    expect(page.locator("#case-over-the-wire .timing")).to_contain_text("round trip unknown")


def test_captured_output_is_shown_when_opened(pages: Any, open_page: Any) -> None:
    """What the agent printed, stdout and stderr, each as the JSON report holds it."""
    path, report = pages["output"]
    page = open_page(path).page
    page.locator("#case-printer > summary").click()
    case = next(case for case in report["cases"] if case["name"] == "printer")
    for title, key in (("Captured stdout", "stdout"), ("Captured stderr", "stderr")):
        part = page.locator("#case-printer details.more", has_text=title)
        part.locator("summary").click()
        expect(part.locator("pre")).to_have_text(case[key])


def test_ten_thousand_cases_open_and_filter(pages: Any, open_page: Any) -> None:
    """10,000 cases: a chunk is drawn, filters count them all, a far anchor opens its case."""
    path, report = pages["big"]
    assert len(report["cases"]) == BIG
    opened = open_page(path)
    page = opened.page
    expect(page.locator("#shown")).to_contain_text(f"Showing 200 of {BIG} matching cases")
    assert rows(page)[:10] == [f"case-{n:05d}" for n in range(0, BIG, 1000)]
    page.get_by_label(f"passed ({BIG - 10})").uncheck()
    expect(page.locator("#cases > li")).to_have_count(10)
    page.get_by_label(f"passed ({BIG - 10})").check()
    page.fill("#search", "case-0999")
    expect(page.locator("#shown")).to_contain_text("Showing 10 of 10 matching cases")
    opened.shot("ten-thousand-search")
    far = open_page(path, "#case-case-09998").page
    expect(far.locator("#case-case-09998")).to_have_attribute("open", "")
    assert far.locator("#cases > li").count() <= 200

"""The self-contained HTML trend page, with and without the chart extra."""

from __future__ import annotations

import builtins
import html
from typing import Any

import pytest

from harness.history.render import CHART_HINT, pass_rate_svg, render_trend_html
from harness.history.store import CaseRow, RunRow
from harness.history.trend_model import Trend, compute_trend


def trend() -> Trend:
    runs = [
        RunRow("r0", "capability", "replay", "2026-01-01T00:00:00Z", "abc", "0.1.0", 1, 2, 0.1),
        RunRow("r1", "capability", "replay", "2026-01-02T00:00:00Z", "def", "0.1.0", 2, 2, 0.1),
    ]
    results = [
        CaseRow("r0", "<script>x</script>", "a.json", False, None, 0.0),
        CaseRow("r1", "<script>x</script>", "a.json", True, None, 0.0),
    ]
    return compute_trend("capability", runs, results)


def test_page_embeds_the_chart_as_inline_svg() -> None:
    """With matplotlib, the page holds an SVG chart and needs no other file."""
    page = render_trend_html(trend())
    assert page.startswith("<!DOCTYPE html>")
    assert '<section id="chart"><svg' in page
    assert "<script" not in page.replace("&lt;script&gt;", "")
    assert "src=" not in page
    assert 'href="http' not in page
    assert '<td class="fail">✗</td><td class="pass">✓</td>' in page


def test_chart_is_deterministic() -> None:
    """The same trend draws the same SVG."""
    assert pass_rate_svg(trend().runs, "t") == pass_rate_svg(trend().runs, "t")


def test_without_matplotlib_the_page_says_how_to_get_the_chart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The extra is optional: the table still renders and the page explains the chart."""
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    page = render_trend_html(trend())
    assert "<svg" not in page
    assert html.escape(CHART_HINT) in page
    assert '<table id="grid">' in page


def test_the_page_allows_no_script_and_loads_nothing() -> None:
    """The trend page's policy refuses every script and every load, and it has the report's
    style."""
    from harness.reports.html import page_part

    page = render_trend_html(trend())
    assert "default-src &#x27;none&#x27;; script-src &#x27;none&#x27;" in page
    assert page_part("style.css") in page

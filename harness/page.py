"""The trend as one self-contained HTML page: the pass-rate chart and the per-case grid."""

from __future__ import annotations

from html import escape

from harness.chart import CHART_HINT, pass_rate_svg
from harness.trend import Trend

__all__ = ["render_trend_html"]

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1d1d1f; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; }
td.pass { background: #dafbe1; } td.fail { background: #ffebe9; }
td.error { background: #fff8c5; } td.none { color: #8c959f; }
.hint { padding: 0.75rem; background: #f6f8fa; border-left: 4px solid #8c959f; }
"""
_MARK = {"pass": "✓", "fail": "✗", "error": "E", None: "·"}


def render_trend_html(trend: Trend) -> str:
    """A page that needs nothing but itself: inline CSS, inline SVG (when available)."""
    title = f"harness trend: {trend.suite}"
    svg = pass_rate_svg(trend.runs, title) if trend.runs else None
    chart = svg if svg is not None else f'<p class="hint">{escape(CHART_HINT)}</p>'
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<section id="chart">{chart}</section>',
        _runs_table(trend),
        _grid(trend),
        _lists(trend),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _runs_table(trend: Trend) -> str:
    rows = "".join(
        f"<tr><td>#{index}</td><td>{escape(p.started_at)}</td>"
        f"<td><code>{escape((p.git_commit or '-')[:10])}</code></td>"
        f"<td>{p.passed}/{p.total}</td><td>{p.pass_rate:.1%}</td></tr>"
        for index, p in enumerate(trend.runs, 1)
    )
    head = "<tr><th>#</th><th>started</th><th>commit</th><th>passed</th><th>pass rate</th></tr>"
    return f'<h2>Runs</h2><table id="runs">{head}{rows}</table>'


def _grid(trend: Trend) -> str:
    head = "".join(f"<th>#{index}</th>" for index in range(1, len(trend.runs) + 1))
    rows = "".join(
        f"<tr><td>{escape(case.name)}</td>"
        + "".join(
            f'<td class="{status or "none"}">{_MARK[status]}</td>' for status in case.statuses
        )
        + "</tr>"
        for case in trend.cases
    )
    return f'<h2>Cases</h2><table id="grid"><tr><th>case</th>{head}</tr>{rows}</table>'


def _lists(trend: Trend) -> str:
    sections = [
        ("Newly passing", trend.newly_passing),
        ("Newly failing", trend.newly_failing),
        ("Flaky", trend.flaky),
    ]
    out = []
    for title, names in sections:
        items = "".join(f"<li>{escape(name)}</li>" for name in names) or "<li>(none)</li>"
        out.append(f"<h2>{title}</h2><ul>{items}</ul>")
    return "".join(out)

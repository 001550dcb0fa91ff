"""The trend as one self-contained HTML page: the pass-rate chart and the per-case grid."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from html import escape
from urllib.parse import quote

from harness.history.trend_model import (  # MV-PRUNE
    RunPoint,
    Status,
    Trend,
)
from harness.reports.columns import lay_out
from harness.reports.html import page_part, policy
from harness.text import markdown, printable

__all__ = [
    "CHART_HINT",
    "pass_rate_svg",
    "render_trend_html",
    "render_trend_markdown",
    "render_trend_table",
]


def render_trend_html(trend: Trend, reports: Mapping[str, str] | None = None) -> str:
    """A page that needs nothing but itself: the HTML report's style, inline SVG (when
    available), and no script at all.

    Args:
        trend: What the page shows.
        reports: The file name of each run's HTML report kept beside the page, by run id:
            each such run links to its report.
    """
    title = f"harness trend: {trend.suite}"
    svg = pass_rate_svg(trend.runs, title) if trend.runs else None
    chart = svg if svg is not None else f'<p class="note">{escape(CHART_HINT)}</p>'
    style = page_part("style.css")
    # The chart's SVG carries its own inline styles: with it, inline style is allowed.
    csp = policy(script=None, style=None if svg is not None else style)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">',
        f"<title>{escape(title)}</title><style>{style}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f'<section id="chart">{chart}</section>',
        _runs_table(trend, reports or {}),
        _grid(trend),
        _lists(trend),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _runs_table(trend: Trend, reports: Mapping[str, str]) -> str:
    rows = "".join(
        f"<tr><td>#{p.number}</td><td>{escape(p.started_at)}</td>"
        f"<td><code>{escape((p.git_commit or '-')[:10])}</code></td>"
        f"<td>{p.passed}/{p.total}</td><td>{p.pass_rate:.1%}</td><td>{_link(p, reports)}</td></tr>"
        for p in trend.runs
    )
    head = (
        "<tr><th>#</th><th>started</th><th>commit</th><th>passed</th><th>pass rate</th>"
        "<th>report</th></tr>"
    )
    return f'<h2>Runs</h2><table id="runs">{head}{rows}</table>'


def _link(point: RunPoint, reports: Mapping[str, str]) -> str:
    name = reports.get(point.run_id)
    if name is None:
        return '<span class="none">not kept</span>'
    return f'<a href="{escape(quote(name))}">report #{point.number}</a>'


def _grid(trend: Trend) -> str:
    head = "".join(f"<th>#{p.number}</th>" for p in trend.runs)
    rows = "".join(
        f"<tr><td>{escape(case.name)}</td>"
        + "".join(
            f'<td class="{status or "none"}">{_MARKS[status]}</td>' for status in case.statuses
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


CHART_HINT = "Install the chart extra for a pass-rate chart: pip install 'replay-harness[chart]'"


def pass_rate_svg(points: Sequence[RunPoint], title: str) -> str | None:
    """An SVG line chart of the pass rate per run, or None without matplotlib."""
    try:
        from matplotlib import rc_context
        from matplotlib.figure import Figure
    except ImportError:
        return None
    figure = Figure(figsize=(8, 3), layout="constrained")
    axes = figure.subplots()
    runs = [p.number for p in points]
    axes.plot(runs, [100 * p.pass_rate for p in points], marker="o", color="#2f6fb5")
    axes.set_ylim(0, 105)
    axes.set_xticks(runs, [f"#{run}" for run in runs])
    axes.set_xlabel("run")
    axes.set_ylabel("pass rate (%)")
    axes.set_title(title)
    axes.grid(alpha=0.3)
    buffer = io.StringIO()
    # A fixed id salt and no date keep the SVG identical for identical data.
    with rc_context({"svg.hashsalt": "harness"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]


def _rate(point: RunPoint) -> str:
    return f"{point.pass_rate:.1%}"


def _commit(point: RunPoint) -> str:
    return (point.git_commit or "-")[:10]


def _listing(trend: Trend) -> list[tuple[str, tuple[str, ...]]]:
    window = f"the last {len(trend.runs)} run(s)"
    return [
        ("newly passing since the previous run", trend.newly_passing),
        ("newly failing since the previous run", trend.newly_failing),
        (f"flaky (flipped more than once in {window})", trend.flaky),
    ]


def render_trend_table(trend: Trend) -> str:
    """The trend as plain-text tables for a terminal: the runs, then each case's marks."""
    runs = lay_out(
        ["#", "started", "commit", "passed", "pass rate"],
        [
            (f"#{p.number}", p.started_at, _commit(p), f"{p.passed}/{p.total}", _rate(p))
            for p in trend.runs
        ],
    )
    grid = lay_out(
        ["case", *(f"#{p.number}" for p in trend.runs)],
        [(c.name, *(_MARKS[s] for s in c.statuses)) for c in trend.cases],
    )
    lines = [f"{printable(trend.suite)}: {len(trend.runs)} run(s)", "", *runs, "", *grid, ""]
    for title, names in _listing(trend):
        lines.append(f"{title}: {', '.join(map(printable, names)) if names else '(none)'}")
    return "\n".join(lines)


def render_trend_markdown(trend: Trend) -> str:
    """The trend as Markdown (pipe tables), e.g. for a GitHub job summary."""
    lines = [
        f"### harness trend: {markdown(trend.suite)} ({len(trend.runs)} run(s))",
        "",
        "| # | started | commit | passed | pass rate |",
        "|---|---|---|---|---|",
    ]
    for p in trend.runs:
        lines.append(
            f"| #{p.number} | {p.started_at} | `{_commit(p)}` | {p.passed}/{p.total} | {_rate(p)} |"
        )
    columns = " | ".join(f"#{p.number}" for p in trend.runs)
    lines += ["", f"| case | {columns} |", "|---|" + "---|" * len(trend.runs)]
    for case in trend.cases:
        marks = " | ".join(_MARKS[s] for s in case.statuses)
        lines.append(f"| {markdown(case.name)} | {marks} |")
    lines.append("")
    for title, names in _listing(trend):
        shown = ", ".join(markdown(name) for name in names) if names else "(none)"
        lines.append(f"- **{title}**: {shown}")
    return "\n".join(lines) + "\n"


_MARKS: dict[Status | None, str] = {"pass": "✓", "fail": "✗", "error": "E", None: "·"}

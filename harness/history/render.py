"""The trend as one self-contained HTML page: the pass-rate chart and the per-case grid."""

from __future__ import annotations

import io
from collections.abc import Sequence
from html import escape

from harness.history.trend import (  # MV-PRUNE
    RunPoint,
    Status,
    Trend,
)
from harness.text import markdown, printable

__all__ = [
    "CHART_HINT",
    "pass_rate_svg",
    "render_trend_html",
    "render_trend_markdown",
    "render_trend_table",
]

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1d1d1f; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; }
td.pass { background: #dafbe1; } td.fail { background: #ffebe9; }
td.error { background: #fff8c5; } td.none { color: #8c959f; }
.hint { padding: 0.75rem; background: #f6f8fa; border-left: 4px solid #8c959f; }
"""


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
        f"<tr><td>#{p.number}</td><td>{escape(p.started_at)}</td>"
        f"<td><code>{escape((p.git_commit or '-')[:10])}</code></td>"
        f"<td>{p.passed}/{p.total}</td><td>{p.pass_rate:.1%}</td></tr>"
        for p in trend.runs
    )
    head = "<tr><th>#</th><th>started</th><th>commit</th><th>passed</th><th>pass rate</th></tr>"
    return f'<h2>Runs</h2><table id="runs">{head}{rows}</table>'


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
    """The trend as plain-text tables for a terminal."""
    from tabulate import tabulate

    runs = tabulate(
        [
            (f"#{p.number}", p.started_at, _commit(p), f"{p.passed}/{p.total}", _rate(p))
            for p in trend.runs
        ],
        headers=["#", "started", "commit", "passed", "pass rate"],
        tablefmt="simple",
        disable_numparse=True,
    )
    grid = tabulate(
        [(printable(c.name), *(_MARKS[s] for s in c.statuses)) for c in trend.cases],
        headers=["case", *(f"#{p.number}" for p in trend.runs)],
        tablefmt="simple",
        disable_numparse=True,
    )
    lines = [f"{printable(trend.suite)}: {len(trend.runs)} run(s)", "", runs, "", grid, ""]
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

"""The pass-rate chart, drawn by matplotlib (the optional `chart` extra) as inline SVG."""

from __future__ import annotations

import io
from collections.abc import Sequence

from harness.trend import RunPoint

__all__ = ["CHART_HINT", "pass_rate_svg"]

CHART_HINT = "Install the chart extra for a pass-rate chart: pip install 'harness[chart]'"


def pass_rate_svg(points: Sequence[RunPoint], title: str) -> str | None:
    """An SVG line chart of the pass rate per run, or None without matplotlib."""
    try:
        from matplotlib import rc_context
        from matplotlib.figure import Figure
    except ImportError:
        return None
    figure = Figure(figsize=(8, 3), layout="constrained")
    axes = figure.subplots()
    runs = list(range(1, len(points) + 1))
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

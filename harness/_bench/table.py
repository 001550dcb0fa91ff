"""The table figure: rendering the per-case table of a large run, ours against tabulate's.

The table is laid out by `harness.reports.table` itself, as tabulate's `simple` format would
lay it out; this measures both on the same synthetic report, so the reason for not using
tabulate there stays checked.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

__all__ = ["measure_table"]


def measure_table(size: int, repeat: int) -> dict[str, Any]:
    """Median seconds to render the table of a `size`-case report, and with tabulate."""
    import msgspec
    from tabulate import tabulate

    from harness.reports.model import CaseReport, SuiteReport
    from harness.reports.table import render_table, table_rows

    cases = msgspec.convert(
        [
            {
                "name": f"case-{index:06d}-with-a-realistic-name",
                "source": f"evals/big/case_{index:06d}.json",
                "grades": [
                    {"check": f"check_{j}", "passed": index % 7 != 0 or j > 0, "detail": "d"}
                    for j in range(4)
                ],
            }
            for index in range(size)
        ],
        tuple[CaseReport, ...],
    )
    report = SuiteReport(suite="big", directory="evals/big", mode="replay", cases=cases)
    headers = ["", "case", "source", "checks"]

    def with_tabulate() -> str:
        return tabulate(table_rows(report), headers=headers, disable_numparse=True)

    ours, theirs = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        render_table(report)
        ours.append(time.perf_counter() - started)
        started = time.perf_counter()
        with_tabulate()
        theirs.append(time.perf_counter() - started)
    own, tab = statistics.median(ours), statistics.median(theirs)
    return {"cases": size, "harness_s": own, "tabulate_s": tab, "tabulate_vs_harness": tab / own}

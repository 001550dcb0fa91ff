"""Bench figures for what a run writes: per-case cost and peak RSS by output, at two sizes.

Three outputs side by side in one run, on the same generated suite: the default (the table on
stdout), JSON only (`--format json`), and every artifact (the table, `--json`, `--junit` and
`--history`). Peak RSS is measured with every artifact on, at a size and at ten times it: a
run whose memory is flat in the number of cases shows a ratio near 1.
"""

from __future__ import annotations

import os
from typing import Any

from harness._bench.spawner import Spawner, harness_command

__all__ = ["OUTPUTS", "measure_memory", "measure_outputs", "more_tables"]

OUTPUTS = ("default", "json", "all artifacts")


def _argv(folder: str, output: str, scratch: str) -> list[str]:
    argv = [*harness_command(), "run", "--suite", folder]
    if output == "json":
        return [*argv, "--format", "json"]
    if output == "all artifacts":
        out = os.path.join(scratch, "out")
        return [
            *argv,
            "--json",
            f"{out}.json",
            "--junit",
            f"{out}.junit.xml",
            "--history",
            f"{out}.history.db",
        ]
    return argv


def measure_outputs(
    spawner: Spawner, folder: str, scratch: str, start: dict[str, float], repeat: int
) -> list[dict[str, Any]]:
    """`harness run` on one suite with each output: wall time, per-case cost net of start-up."""
    count = len(os.listdir(folder))
    rows = []
    for output in OUTPUTS:
        wall, rss = spawner.median(_argv(folder, output, scratch), repeat)
        rows.append(
            {
                "output": output,
                "cases": count,
                "wall_s": wall,
                "per_case_us": (wall - start["harness_run_s"]) / count * 1e6,
                "peak_rss_mib": rss / 1024,
            }
        )
    return rows


def measure_memory(
    spawner: Spawner, folders: list[str], scratch: str, repeat: int
) -> list[dict[str, Any]]:
    """Peak RSS of `harness run` with every artifact on, for each suite (smallest first).

    Each run starts with no artifact from an earlier one: a history left by the runs before
    would charge this one for the rows it already holds.
    """
    rows: list[dict[str, Any]] = []
    for folder in folders:
        _clear(scratch)
        wall, rss = spawner.median(_argv(folder, "all artifacts", scratch), repeat)
        row = {"cases": len(os.listdir(folder)), "wall_s": wall, "peak_rss_mib": rss / 1024}
        if rows:
            row["vs_smallest"] = row["peak_rss_mib"] / rows[0]["peak_rss_mib"]
        rows.append(row)
    return rows


def _clear(scratch: str) -> None:
    """Remove the artifacts `_argv` names (and SQLite's journal files beside the history)."""
    out = os.path.join(scratch, "out")
    for suffix in (".json", ".junit.xml", ".history.db", ".history.db-wal", ".history.db-shm"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)


def more_tables(results: dict[str, Any]) -> list[str]:
    """The outputs, memory and worker figures, as printed tables."""
    from tabulate import tabulate

    workers = results["workers"]
    return [
        "",
        "harness run by output, the mix (median; per case net of harness start-up)",
        tabulate(
            [
                (
                    row["output"],
                    row["cases"],
                    f"{row['wall_s']:.3f}",
                    f"{row['per_case_us']:.0f}",
                    f"{row['peak_rss_mib']:.0f}",
                )
                for row in results["outputs"]
            ],
            headers=["output", "cases", "wall s", "us/case", "peak RSS MiB"],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
        "peak RSS, every artifact on (the mix)",
        tabulate(
            [
                (
                    row["cases"],
                    f"{row['wall_s']:.2f}",
                    f"{row['peak_rss_mib']:.0f}",
                    f"{row['vs_smallest']:.2f}x" if "vs_smallest" in row else "",
                )
                for row in results["memory"]
            ],
            headers=["cases", "wall s", "peak RSS MiB", "vs smallest"],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
        f"workers: {workers['jobs']} started and a result each in "
        f"{workers['start_s'] * 1e3:.1f} ms; {workers['per_result_us']:.1f} us per result after",
        tabulate(
            [
                (
                    row["agent"],
                    row["cases"],
                    f"{row['serial_s']:.3f}",
                    f"{row['jobs_2_s']:.3f}",
                    f"{row['jobs_auto_s']:.3f}",
                    f"{row['jobs_2_vs_serial']:.2f}x",
                    f"{row['auto_vs_serial']:.2f}x",
                )
                for row in results["jobs"]
            ],
            headers=["agent", "cases", "serial s", "jobs 2 s", "auto s", "2 vs 1", "auto vs 1"],
            tablefmt="simple",
            disable_numparse=True,
        ),
    ]

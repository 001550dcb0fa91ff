"""Bench figures for what a run writes: per-case cost and peak RSS by output.

Four outputs side by side in one run, on the same generated suite: the default (the table on
stdout), JSON only (`--format json`), the artifacts CI keeps (the table, `--json` and
`--junit`), and every output (those, `--html` and `--history`). Peak RSS is measured with every
output on, at the target size and at ten times it; each run's exit status is kept, so a run
that does not complete is reported, not raised.
"""

from __future__ import annotations

import os
from typing import Any

from tests.bench.spawner import Spawner, harness_command

__all__ = [
    "ARTIFACTS",
    "EVERY_OUTPUT",
    "OUTPUTS",
    "clear",
    "measure_memory",
    "measure_outputs",
    "output_arguments",
    "run_argv",
]

ARTIFACTS = "table, JSON, JUnit"
"""The artifacts CI keeps from a run: what the per-case target against the peer writes."""
EVERY_OUTPUT = "table, JSON, JUnit, HTML, history"
OUTPUTS = ("default", "json", ARTIFACTS, EVERY_OUTPUT)


def output_arguments(output: str, scratch: str) -> list[str]:
    """`harness run`'s arguments for `output` (one of `OUTPUTS`), its files in `scratch`."""
    out = os.path.join(scratch, "out")
    if output == "json":
        return ["--format", "json"]
    arguments = []
    if output in (ARTIFACTS, EVERY_OUTPUT):
        arguments += ["--json", f"{out}.json", "--junit", f"{out}.junit.xml"]
    if output == EVERY_OUTPUT:
        arguments += ["--html", f"{out}.html", "--history", f"{out}.history.db"]
    return arguments


def run_argv(folder: str, output: str, scratch: str) -> list[str]:
    """`harness run` on `folder`, serial, writing `output` into `scratch`."""
    return [
        *harness_command(),
        "run",
        "--jobs",
        "1",
        *output_arguments(output, scratch),
        "--suite",
        folder,
    ]


def measure_outputs(
    spawner: Spawner, folder: str, scratch: str, start: dict[str, float], repeat: int
) -> list[dict[str, Any]]:
    """`harness run` on one suite with each output: wall time, per-case cost net of start-up."""
    count = len(os.listdir(folder))
    rows = []
    for output in OUTPUTS:
        clear(scratch)
        wall, rss = spawner.median(run_argv(folder, output, scratch), repeat)
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


def measure_memory(spawner: Spawner, folders: list[str], scratch: str) -> list[dict[str, Any]]:
    """Peak RSS and exit status of `harness run` with every output on, for each suite.

    Each run starts with no artifact from an earlier one: a history left by the runs before
    would charge this one for the rows it already holds.
    """
    rows: list[dict[str, Any]] = []
    for folder in folders:
        clear(scratch)
        wall, status, rss = spawner.attempt(run_argv(folder, EVERY_OUTPUT, scratch))
        row = {
            "cases": len(os.listdir(folder)),
            "wall_s": wall,
            "exit_status": status,
            "peak_rss_mib": rss / 1024,
        }
        if rows:
            row["vs_smallest"] = row["peak_rss_mib"] / rows[0]["peak_rss_mib"]
        rows.append(row)
    return rows


def clear(scratch: str) -> None:
    """Remove the artifacts `run_argv` names (and SQLite's journal files beside the history)."""
    out = os.path.join(scratch, "out")
    for suffix in (".json", ".junit.xml", ".html", ".history.db"):
        for path in (out + suffix, f"{out}{suffix}-wal", f"{out}{suffix}-shm"):
            if os.path.exists(path):
                os.remove(path)

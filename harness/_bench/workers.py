"""Bench figures for worker processes: what starting them and bringing results back costs,
and `--jobs 2` against serial for a slow agent and for the built-in echo case.

The slow agent is written into the scratch folder as source (the bench imports no replay
code): the reference loop behind a 20 ms wait, as an agent waiting on I/O would be.
"""

from __future__ import annotations

import os
import time
from typing import Any

from harness._bench.spawner import Spawner, harness_command
from harness.reports.model import CaseReport

__all__ = ["SLOW_AGENT_MS", "measure_jobs", "measure_workers"]

SLOW_AGENT_MS = 20

_SLOW_AGENT = f"""
import time
from harness.replay.agent import ReferenceAgent

class _Slow:
    def __init__(self, agent):
        self._agent = agent

    def turn(self, user_input):
        time.sleep({SLOW_AGENT_MS} / 1000)
        return self._agent.turn(user_input)

def slow_agent(context):
    return _Slow(ReferenceAgent(context.provider, context.tools))
"""


def _report(index: int, state: None) -> CaseReport:
    return CaseReport(name=f"case-{index}", source=f"suite/case_{index:06d}.json")


def measure_workers(jobs: int = 2, results: int = 10_000) -> dict[str, float]:
    """Start-up of `jobs` workers (one tiny item each), and the transfer cost per result."""
    from harness._parallel import run_in_workers

    def timed(count: int) -> float:
        started = time.perf_counter()
        for _ in run_in_workers(
            _report,
            range(count),
            None,
            jobs,
            item_type=int,
            result_type=CaseReport,
            crashed=lambda index: _report(index, None),
        ):
            pass
        return time.perf_counter() - started

    start = min(timed(jobs) for _ in range(3))
    bulk = timed(results)
    return {
        "jobs": jobs,
        "start_s": start,
        "per_result_us": max(bulk - start, 0.0) / results * 1e6,
    }


def measure_jobs(
    spawner: Spawner, scratch: str, slow_suite: str, echo_suite: str, repeat: int
) -> list[dict[str, Any]]:
    """`--jobs 2` against serial, for the slow agent and for the echo case."""
    with open(os.path.join(scratch, "bench_slow_agent.py"), "w", encoding="utf-8") as file:
        file.write(_SLOW_AGENT)
    base = [*harness_command(), "run", "--format", "json"]
    rows = []
    for name, suite, extra in (
        (f"{SLOW_AGENT_MS} ms agent", slow_suite, ["--agent", "bench_slow_agent:slow_agent"]),
        ("echo case", echo_suite, []),
    ):
        argv = [*base, "--suite", suite, *extra]
        serial, _ = spawner.median([*argv, "--jobs", "1"], repeat)
        two, _ = spawner.median([*argv, "--jobs", "2"], repeat)
        auto, _ = spawner.median([*argv, "--jobs", "auto"], repeat)
        rows.append(
            {
                "agent": name,
                "cases": len(os.listdir(suite)),
                "serial_s": serial,
                "jobs_2_s": two,
                "jobs_auto_s": auto,
                "jobs_2_vs_serial": two / serial,
                "auto_vs_serial": auto / serial,
            }
        )
    return rows

"""Bench figures for worker processes: `--jobs 2` and `--jobs auto` against serial, for a slow
agent and for the built-in echo case.

The slow agent is written into the scratch folder as source (the bench imports no replay
code): the reference loop behind a 20 ms wait, as an agent waiting on I/O would be.
"""

from __future__ import annotations

import os
from typing import Any

from tests.bench.spawner import Spawner, harness_command

__all__ = ["SLOW_AGENT_MS", "measure_jobs"]

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

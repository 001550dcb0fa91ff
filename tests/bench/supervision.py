"""What supervising a project's agent costs: the same suite, the built-in loop against a
project factory (the same loop, so only the containment differs), both through `harness run`.

A project agent runs in a forked worker that is reused case after case, on a watchdog thread,
with its stdout and stderr captured per case; the built-in loop runs in the harness's own
process. The factory lives in a module written into the scratch folder, which `python -m`
puts on the path, so the benchmark itself imports nothing above the reports.
"""

from __future__ import annotations

import os
from typing import Any

from tests.bench.spawner import Spawner, harness_command

__all__ = ["measure_supervision"]

_FACTORY = """\
from harness.replay.agent import ReferenceAgent


def factory(context):
    return ReferenceAgent(context.provider, context.tools)
"""


def measure_supervision(spawner: Spawner, scratch: str, folder: str, repeat: int) -> dict[str, Any]:
    """Wall time of `harness run` on `folder`, in process and supervised; the cost per case."""
    with open(os.path.join(scratch, "bench_agent.py"), "w", encoding="utf-8") as file:
        file.write(_FACTORY)
    count = len(os.listdir(folder))
    argv = [*harness_command(), "run", "--suite", folder, "--format", "json"]
    # Timed in turn within each repeat, so a slow spell of the machine weighs on both alike.
    rounds = [
        (spawner.run(argv)[0], spawner.run([*argv, "--agent", "bench_agent:factory"])[0])
        for _ in range(repeat)
    ]
    in_process = sorted(a for a, _ in rounds)[len(rounds) // 2]
    supervised = sorted(b for _, b in rounds)[len(rounds) // 2]
    return {
        "cases": count,
        "in_process_s": in_process,
        "supervised_s": supervised,
        "extra_per_case_us": (supervised - in_process) / count * 1e6,
        "ratio": supervised / in_process,
    }

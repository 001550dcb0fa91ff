"""What reusing an agent command's process buys: a slow-starting agent, with and without reuse.

The agent is a stdlib Python agent (the harness's `agent_io` helper and `urllib`) that sleeps
at start, as a framework's imports would, then plays one tool call and an answer per case.
A suite of `cases` is run with `--agent-reuse` at `--jobs 1` and `2`; without reuse, every case
pays the start-up again, so only `without` cases are run and the figure for the whole suite is
extrapolated from them (the table says so). The per-case cost the harness adds to a reused
agent is measured with the same agent starting at once: the extra wall time of `cases` cases
over one, per case, less the agent's own turn (which it times and prints to stderr, read back
from each case's captured output): its two requests, answered by the replay endpoint, and
their JSON. What is left is the case boundary: supervision, the case's setup, capture, grading
and reports.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from typing import Any

from tests.bench.spawner import Spawner, harness_command

__all__ = ["measure_reuse", "reuse_alone", "reuse_arguments", "reuse_table"]

START_S = 2.0
"""The bench agent's start-up, in seconds."""
WITHOUT = 6
"""Cases run without reuse (each pays the start-up again); the suite's time is extrapolated."""

_AGENT = """\
import json, os, sys, time, urllib.request
from harness.agent_io import cases

time.sleep(float(sys.argv[1]))


def complete(messages):
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "m", "messages": messages}).encode(),
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]},
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)["choices"][0]["message"]


for case in cases():
    messages = []
    for user_input in case:
        started = time.perf_counter()
        messages.append({"role": "user", "content": user_input})
        while True:
            message = complete(messages)
            messages.append(message)
            if not message.get("tool_calls"):
                break
            for call in message["tool_calls"]:
                text = json.loads(call["function"]["arguments"])["message"]
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        print(f"turn_ms={(time.perf_counter() - started) * 1e3:.3f}")  # to the case's stderr
        case.respond(message.get("content") or "")
"""


def reuse_arguments(parser: argparse.ArgumentParser) -> None:
    """The bench's flags for these figures."""
    parser.add_argument("--reuse-cases", type=int, default=100, help="cases for agent_reuse")
    parser.add_argument("--reuse-start", type=float, default=START_S, help="its agent's start, s")
    parser.add_argument("--reuse-only", action="store_true", help="only the agent_reuse figures")


def _fixture(index: int) -> dict[str, Any]:
    word = f"word{index}"
    call = {"id": "call_1", "name": "echo", "arguments": {"message": word}}
    return {
        "model_name": f"reuse-{index:03d}",
        "turns": [
            {
                "user_input": f"Echo {word} for me",
                "steps": [
                    {"response": {"type": "tool_calls", "tool_calls": [call]}},
                    {"response": {"type": "text", "content": f"The echo tool said: {word}"}},
                ],
            }
        ],
        "expects": {"response_contains": [word], "tools_used": ["echo"]},
    }


def _suite(scratch: str, count: int) -> str:
    folder = os.path.join(scratch, f"reuse-{count}")
    os.makedirs(folder, exist_ok=True)
    for index in range(count):
        with open(os.path.join(folder, f"case-{index:03d}.json"), "w", encoding="utf-8") as file:
            json.dump(_fixture(index), file)
    return folder


def measure_reuse(
    spawner: Spawner, scratch: str, cases: int, start_s: float = START_S, without: int = WITHOUT
) -> dict[str, Any]:
    """Wall times of a `cases`-case suite with a `start_s` agent, reused and not, jobs 1 and 2."""
    without = min(without, cases)
    agent = os.path.join(scratch, "reuse_agent.py")
    with open(agent, "w", encoding="utf-8") as file:
        file.write(_AGENT)
    big, small, single = _suite(scratch, cases), _suite(scratch, without), _suite(scratch, 1)

    report = os.path.join(scratch, "reuse-report.json")

    def wall(folder: str, start: float, jobs: int, reuse: bool) -> float:
        argv = [*harness_command(), "run", "--suite", folder, "--json", report]
        argv += ["--jobs", str(jobs), "--agent-command", f"{sys.executable} {agent} {start}"]
        return spawner.run([*argv, "--agent-reuse"] if reuse else argv, ok=(0,))[0]

    rows = []
    for jobs in (1, 2):
        reused = wall(big, start_s, jobs, True)
        fresh = wall(small, start_s, jobs, False)
        rows.append(
            {
                "jobs": jobs,
                "cases": cases,
                "reused_s": reused,
                "without_cases": without,
                "without_s": fresh,
                "without_extrapolated_s": fresh / without * cases,
                "speedup": fresh / without * cases / reused,
            }
        )
    # Timed in turn, three times, so a slow spell of the machine weighs on both alike.
    extra, turns = [], []
    for _ in range(3):
        many = wall(big, 0.0, 1, True)
        turns.append(_turn_ms(report))
        extra.append(many - wall(single, 0.0, 1, True))
    fresh_fast = wall(small, 0.0, 1, False)
    per_case = statistics.median(extra) / max(cases - 1, 1) * 1e3
    turn = statistics.median(turns)
    return {
        "start_s": start_s,
        "rows": rows,
        "per_case_reused_ms": per_case,  # over `cases` - 1 cases: 0 for a one-case suite
        "agent_turn_ms": turn,
        "boundary_ms": per_case - turn,
        "per_case_fresh_ms": fresh_fast / without * 1e3,
    }


def _turn_ms(report: str) -> float:
    """The median of the agent's own turn times, as its cases' captured stderr says them."""
    with open(report, encoding="utf-8") as file:
        cases = json.load(file)["cases"]
    return statistics.median(float(case["stderr"].split("turn_ms=")[1]) for case in cases)


def reuse_alone(cases: int, start_s: float = START_S) -> dict[str, Any]:
    """`measure_reuse` in a scratch folder and spawner of its own (`--reuse-only`)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="harness-bench-") as scratch:
        spawner = Spawner(cwd=scratch)
        try:
            return measure_reuse(spawner, scratch, cases, start_s)
        finally:
            spawner.close()


def reuse_table(reuse: dict[str, Any]) -> list[str]:
    """The reuse figures, as printed lines."""
    from tabulate import tabulate

    rows = [
        (
            row["jobs"],
            row["cases"],
            f"{row['reused_s']:.2f}",
            f"{row['without_s']:.2f} ({row['without_cases']} cases)",
            f"{row['without_extrapolated_s']:.1f}*",
            f"{row['speedup']:.0f}x",
        )
        for row in reuse["rows"]
    ]
    headers = ["jobs", "cases", "reuse s", "no reuse s, run", "no reuse s", "speed-up"]
    return [
        f"agent_reuse: a {reuse['start_s']:g} s-start agent, one tool call a case",
        tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True),
        "* extrapolated from the cases run without reuse (each pays the start-up again)",
        f"per case, agent starting at once: {reuse['per_case_reused_ms']:.1f} ms reused, of "
        f"which {reuse['agent_turn_ms']:.1f} ms the agent's turn (its requests, answered by "
        f"the endpoint) and {reuse['boundary_ms']:.1f} ms the case boundary (supervision, "
        "setup, capture, grading, reports);",
        f"  {reuse['per_case_fresh_ms']:.0f} ms with a process per case (the whole run / cases)",
    ]

"""`python -m tests.bench`: how fast the harness loads, replays and starts, and whether it
meets its targets, measured.

Generates synthetic suites in a temp folder (a realistic mix of text, tool-call and multi-turn
cases, and a suite of one-tool echo cases), then measures each figure against a floor on the
same machine in the same run, and the three targets (`tests/bench/targets.py`). Nothing here
asserts: it prints tables and the targets' verdicts, and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

from tests.bench.figures import measure_load, measure_run, measure_start
from tests.bench.outputs import measure_memory, measure_outputs
from tests.bench.render import render
from tests.bench.reuse import measure_reuse, reuse_alone, reuse_arguments, reuse_table
from tests.bench.spawner import Spawner
from tests.bench.supervision import measure_supervision
from tests.bench.synthetic import generate_suite
from tests.bench.targets import measure_peers
from tests.bench.workers import measure_jobs

__all__ = ["main"]

START_CASES = 10
"""Cases in the suite the cold start is measured on (the start-up target's)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.bench", description=__doc__)
    parser.add_argument(
        "--cases", type=int, default=10_000, help="the targets' suite size (default: %(default)s)"
    )
    parser.add_argument(
        "--huge", type=int, help="the suite that must complete (default: ten times --cases)"
    )
    parser.add_argument("--quick", action="store_true", help="skip the --huge run")
    parser.add_argument(
        "--sizes",
        default="1000",
        help="more suite sizes for the run figures (default: %(default)s)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        help="repeats per figure, the median kept (default: %(default)s)",
    )
    parser.add_argument(
        "--slow-cases", type=int, default=200, help="cases of the slow agent (default: %(default)s)"
    )
    parser.add_argument(
        "--peer-path", help="a folder holding pydantic-evals, installed apart (default: here)"
    )
    reuse_arguments(parser)
    parser.add_argument("--out", help="also write the figures as JSON here")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print (and optionally write) its figures."""
    args = _parser().parse_args(argv)
    if args.reuse_only:
        reuse = reuse_alone(args.reuse_cases, args.reuse_start)
        print("\n".join(reuse_table(reuse)))
        return _write(args.out, {"reuse": reuse})
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as scratch:
        spawner = Spawner(cwd=scratch)  # first, while this process is still small
        try:
            results = _measure(spawner, scratch, args)
        finally:
            spawner.close()
    print(render(results))
    return _write(args.out, results)


def _write(out: str | None, results: dict[str, Any]) -> int:
    if out:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        with open(out, "w", encoding="utf-8") as file:
            json.dump(results, file, indent=2)
            file.write("\n")
    return 0


class _Suites:
    """The generated suites, each made once, by mix and size, in the scratch folder."""

    def __init__(self, scratch: str) -> None:
        self._scratch = scratch
        self.sizes: dict[str, int] = {}

    def __call__(self, mix: str, size: int) -> str:
        folder = os.path.join(self._scratch, f"{mix}-{size}")
        if not os.path.isdir(folder):
            self.sizes[folder] = generate_suite(folder, size, mix=mix)
            os.sync()  # no write-back of the new files during the measurements
        return folder


def _measure(spawner: Spawner, scratch: str, args: argparse.Namespace) -> dict[str, Any]:
    # The runs must measure the harness as installed (exit status 1 would pass for a failed case).
    spawner.run([sys.executable, "-c", "import harness"], ok=(0,))
    suite, repeat, cases = _Suites(scratch), args.repeat, args.cases
    start = measure_start(spawner, suite("mix", START_CASES), 3 * repeat)
    results: dict[str, Any] = {"machine": _machine(), "start": start, "load": [], "run": []}
    sizes = sorted({*(int(size) for size in args.sizes.split(",")), cases})
    # Every size of the mix, serial and in workers; the targets' size also as simple text cases.
    plan = [("mix", size, ("1", "auto")) for size in sizes] + [("text", cases, ("1",))]
    for mix, size, job_counts in plan:
        folder = suite(mix, size)
        # A load of 10k fixtures varies by some percent from one repeat to the next: three
        # times the repeats steady it.
        results["load"].append(measure_load(folder, suite.sizes[folder], 3 * repeat, mix))
        for jobs in job_counts:
            results["run"].append(measure_run(spawner, folder, jobs, start, repeat, mix))
    results["supervision"] = measure_supervision(spawner, scratch, suite("mix", sizes[0]), repeat)
    results["outputs"] = measure_outputs(spawner, suite("mix", cases), scratch, start, repeat)
    huge = [] if args.quick else [suite("mix", args.huge or 10 * cases)]
    results["memory"] = measure_memory(spawner, [suite("mix", cases), *huge], scratch)
    slow, echo = suite("echo", args.slow_cases), suite("echo", cases)
    results["jobs"] = measure_jobs(spawner, scratch, slow, echo, repeat)
    results["reuse"] = measure_reuse(spawner, scratch, args.reuse_cases, args.reuse_start)
    # The runs start in the scratch folder: a relative path would lead nowhere from there.
    peer_path = os.path.abspath(args.peer_path) if args.peer_path else None
    results["peers"] = measure_peers(spawner, echo, scratch, repeat, peer_path)
    return results


def _machine() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "platform": sys.platform,
        "cores": len(os.sched_getaffinity(0)),  # the processors this process may run on
    }

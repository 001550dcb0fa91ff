"""The project's three targets, measured in the bench's own run and judged: met or NOT MET.

1. Per case, `harness run` writing the artifacts CI keeps (the table, JSON and JUnit) on the
   target suite is at least `PEER_RATIO` times faster than pydantic-evals with pydantic-ai's
   `FunctionModel` on the same cases (`tests/bench/peers.py`), both serial.
2. Peak RSS of `harness run` with every output on stays under `MEMORY_MIB` at the target size,
   and a run of ten times that many cases completes.
3. `harness run` on a 10-case suite takes at most `START_MS` longer than `python -c pass`.

Per-case cost is the difference between an N-case run and a 1-case run, over N - 1, so start-up
and imports are set apart alike for both tools. Each command runs once untimed first (caches,
bytecode). pydantic-evals is installed by `nox -s bench`; where it is missing, the first
target says it was not measured.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import statistics
import sys
from typing import Any

from tests.bench.outputs import ARTIFACTS, EVERY_OUTPUT, clear, output_arguments
from tests.bench.spawner import Spawner, harness_command

__all__ = ["MEMORY_MIB", "PEER_RATIO", "START_MS", "measure_peers", "verdicts"]

PEER_RATIO = 30.0
MEMORY_MIB = 250.0
START_MS = 100.0
PEER = "pydantic-evals"
_PEER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers.py")


def _first_case(folder: str, scratch: str) -> str:
    """A suite of `folder`'s first fixture alone."""
    single = os.path.join(scratch, "peer-1")
    os.makedirs(single, exist_ok=True)
    first = sorted(os.listdir(folder))[0]
    shutil.copyfile(os.path.join(folder, first), os.path.join(single, first))
    return single


def _per_case(
    spawner: Spawner, argv: list[str], suites: tuple[str, str], repeats: tuple[int, int]
) -> dict[str, float]:
    """`argv` + a suite, on one case and on all: median wall times, the cost of a case.

    Each run starts with no artifact left by the one before (a history would hold its rows).
    """
    scratch = os.path.dirname(suites[0])

    def timed(suite: str) -> tuple[float, int]:
        clear(scratch)
        return spawner.run([*argv, suite], ok=(0,))

    single, suite = suites
    timed(single)  # warm-up, not timed
    one = statistics.median(timed(single)[0] for _ in range(repeats[0]))
    runs = [timed(suite) for _ in range(repeats[1])]
    many = statistics.median(wall for wall, _ in runs)
    return {
        "one_case_s": one,
        "all_cases_s": many,
        "per_case_us": (many - one) / max(len(os.listdir(suite)) - 1, 1) * 1e6,
        "peak_rss_mib": max(rss for _, rss in runs) / 1024,
    }


def _peer_installed(path: str | None) -> bool:
    if path is None:
        return importlib.util.find_spec("pydantic_evals") is not None
    return os.path.isdir(os.path.join(path, "pydantic_evals"))


def measure_peers(
    spawner: Spawner, suite: str, scratch: str, repeat: int, peer_path: str | None = None
) -> dict[str, Any]:
    """The harness (writing the artifacts CI keeps, then every output) and pydantic-evals on
    the same suite: per-case cost, wall times and peak RSS of each (None: not installed).

    The peer's packages are in `peer_path` (or, without it, in this environment). The peer's
    run of the whole suite is timed once: it is the slow one.
    """
    suites = (_first_case(suite, scratch), suite)
    rows: dict[str, Any] = {"cases": len(os.listdir(suite))}
    for output in (ARTIFACTS, EVERY_OUTPUT):
        argv = [*harness_command(), "run", "--jobs", "1", *output_arguments(output, scratch)]
        rows[f"harness: {output}"] = _per_case(
            spawner, [*argv, "--suite"], suites, (repeat, repeat)
        )
    if not _peer_installed(peer_path):
        rows[PEER] = None
        return rows
    where = [peer_path] if peer_path else sys.path
    peer = next(iter(importlib.metadata.distributions(name=PEER, path=where)))
    rows["peer_version"] = peer.version
    argv = [sys.executable, _PEER_SCRIPT, *(["--path", peer_path] if peer_path else [])]
    rows[PEER] = _per_case(spawner, argv, suites, (repeat, 1))
    return rows


def _met(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def _peer_line(peers: dict[str, Any]) -> str:
    ours, theirs = peers[f"harness: {ARTIFACTS}"], peers[PEER]
    head = f"1. per case, {peers['cases']:,} cases, {ARTIFACTS}:"
    if theirs is None:
        return f"{head} {PEER} is not installed (`nox -s bench` installs it): not measured"
    ratio = theirs["per_case_us"] / max(ours["per_case_us"], 1e-3)
    return (
        f"{head} harness {ours['per_case_us']:,.0f} us, {PEER} {theirs['per_case_us']:,.0f} us: "
        f"{ratio:,.1f}x faster (target: at least {PEER_RATIO:.0f}x): {_met(ratio >= PEER_RATIO)}"
    )


def _memory_line(memory: list[dict[str, Any]]) -> str:
    target = memory[0]
    fits = target["exit_status"] == 0 and target["peak_rss_mib"] < MEMORY_MIB
    line = (
        f"2. peak RSS, {target['cases']:,} cases, {EVERY_OUTPUT}: {target['peak_rss_mib']:,.0f} "
        f"MiB (target: under {MEMORY_MIB:.0f} MiB)"
    )
    if len(memory) < 2:
        return f"{line}: {_met(fits)}; ten times the cases: not run (--quick)"
    huge = memory[1]
    done = huge["exit_status"] == 0
    ran = "completed" if done else f"exited {huge['exit_status']}"
    return (
        f"{line}; {huge['cases']:,} cases {ran} in {huge['wall_s']:,.0f} s, peak RSS "
        f"{huge['peak_rss_mib']:,.0f} MiB: {_met(fits and done)}"
    )


def _start_line(start: dict[str, Any]) -> str:
    extra_ms = start["extra_s"] * 1e3
    return (
        f"3. harness run on a {start['cases']}-case suite, less python -c pass: {extra_ms:,.0f} ms "
        f"(target: at most {START_MS:.0f} ms): {_met(extra_ms <= START_MS)}"
    )


def verdicts(results: dict[str, Any]) -> list[str]:
    """The three targets: each one's figures from `results` and whether it is met."""
    return [
        "targets",
        _peer_line(results["peers"]),
        _memory_line(results["memory"]),
        _start_line(results["start"]),
    ]

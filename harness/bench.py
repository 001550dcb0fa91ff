"""`python -m harness.bench`: how fast the harness loads, replays and starts, measured.

Generates synthetic suites in a temp folder (a realistic mix of text, tool-call and multi-turn
cases), then measures, side by side in one run, each figure against a floor on the same
machine: decoding against reading the files and against `json.loads`; `harness run` against
`python -c pass`. Machines are noisy, so every figure is the median of several repeats and
the ratios are what to compare. Nothing here asserts: it prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

__all__ = ["generate_suite", "main"]


def generate_suite(folder: str, count: int, seed: int = 7) -> int:
    """Write `count` fixtures into `folder`: 40 % text, 40 % one tool call, 20 % multi-turn.

    Returns:
        The total size of the files, in bytes.
    """
    rng = random.Random(seed)
    os.makedirs(folder, exist_ok=True)
    total = 0
    for index in range(count):
        kind = index % 5
        trace = (
            _text_case(index, rng) if kind < 2 else _tool_case(index, rng, turns=1 + (kind == 4))
        )
        data = json.dumps(trace, indent=2, ensure_ascii=False).encode()
        with open(os.path.join(folder, f"case_{index:06d}.json"), "wb") as file:
            file.write(data)
        total += len(data)
    return total


def _words(rng: random.Random, count: int) -> str:
    vocabulary = ("alpha", "bravo", "delta", "echo", "gamma", "kilo", "lima", "nova", "sierra")
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def _text_case(index: int, rng: random.Random) -> dict[str, Any]:
    answer = f"Hello harness_user, here is answer {index}: {_words(rng, 8)}."
    return {
        "model_name": f"text-case-{index}",
        "turns": [
            {
                "user_input": f"Question {index}: {_words(rng, 6)}?",
                "steps": [
                    {
                        "response": {
                            "type": "text",
                            "content": answer,
                            "input_tokens": 20,
                            "output_tokens": 12,
                        }
                    }
                ],
            }
        ],
        "expects": {
            "response_contains": [f"answer {index}"],
            "response_not_contains": ["error"],
            "exact_tool_calls": 0,
        },
    }


def _tool_case(index: int, rng: random.Random, turns: int) -> dict[str, Any]:
    scripted = []
    for turn in range(turns):
        message = f"{_words(rng, 3)} {index}-{turn}"
        call = {"id": f"call_{turn}", "name": "echo", "arguments": {"message": message}}
        scripted.append(
            {
                "user_input": f"Please echo: {message}",
                "steps": [
                    {
                        "response": {
                            "type": "tool_calls",
                            "tool_calls": [call],
                            "input_tokens": 30,
                            "output_tokens": 15,
                        }
                    },
                    {
                        "response": {
                            "type": "text",
                            "content": f"The echo tool said: {message}",
                            "input_tokens": 50,
                            "output_tokens": 10,
                        }
                    },
                ],
            }
        )
    last = f"{index}-{turns - 1}"
    return {
        "model_name": f"tool-case-{index}",
        "turns": scripted,
        "expects": {
            "exact_tool_calls": turns,
            "tool_arguments_contain": [{"tool": "echo", "needle": last, "call_index": turns - 1}],
            "tool_results_contain": [{"tool": "echo", "needle": last, "call_index": turns - 1}],
            "all_tools_succeeded": True,
            "response_matches": [f"said: .* {last}$"],
        },
    }


def _median_seconds(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _read_all(folder: str) -> list[bytes]:
    out = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as file:
                out.append(file.read())
    return out


def measure_load(folder: str, size: int, repeat: int) -> dict[str, float]:
    """Decode throughput against the two floors, on the same files in the same run."""
    from harness.suite import load_suite

    count = len(os.listdir(folder))
    blobs = _read_all(folder)
    read_s = _median_seconds(lambda: _read_all(folder), repeat)
    loads_s = _median_seconds(lambda: [json.loads(blob) for blob in blobs], repeat)
    load_s = _median_seconds(lambda: load_suite(folder), repeat)
    return {
        "fixtures": count,
        "megabytes": size / 1e6,
        "read_files_s": read_s,
        "json_loads_s": loads_s,
        "harness_load_s": load_s,
        "harness_fixtures_per_s": count / load_s,
        "harness_mb_per_s": size / 1e6 / load_s,
        "load_vs_read": load_s / read_s,
        "load_vs_json_loads_plus_read": load_s / (read_s + loads_s),
    }


def _run_process(argv: Sequence[str]) -> tuple[float, int]:
    """Wall time (s) and peak RSS (KiB) of one child process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        raise SystemExit(f"bench: {' '.join(argv)} exited {child.returncode}")
    return elapsed, usage.ru_maxrss


def _median_process(argv: Sequence[str], repeat: int) -> tuple[float, int]:
    runs = [_run_process(argv) for _ in range(repeat)]
    return statistics.median(t for t, _ in runs), max(rss for _, rss in runs)


def measure_start(suite: str, repeat: int) -> dict[str, float]:
    """Cold start of `harness run` on a small suite against `python -c pass`."""
    bare, _ = _median_process([sys.executable, "-c", "pass"], repeat)
    harness, rss = _median_process(
        [sys.executable, "-m", "harness", "run", "--suite", suite], repeat
    )
    return {
        "python_c_pass_s": bare,
        "harness_run_s": harness,
        "extra_s": harness - bare,
        "peak_rss_mib": rss / 1024,
    }


def measure_run(folder: str, jobs: str, start_s: float, repeat: int) -> dict[str, Any]:
    """End-to-end `harness run` on a suite; per-case overhead net of start-up."""
    count = len(os.listdir(folder))
    argv = [
        sys.executable,
        "-m",
        "harness",
        "run",
        "--suite",
        folder,
        "--format",
        "json",
        "--jobs",
        jobs,
    ]
    wall, rss = _median_process(argv, repeat)
    return {
        "cases": count,
        "jobs": jobs,
        "wall_s": wall,
        "per_case_us": (wall - start_s) / count * 1e6,
        "peak_rss_mib": rss / 1024,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print (and optionally write) its figures."""
    parser = argparse.ArgumentParser(prog="python -m harness.bench", description=__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="suite sizes to generate")
    parser.add_argument("--repeat", type=int, default=5, help="repeats per figure (median)")
    parser.add_argument("--start-suite", default="evals/regression", help="suite for cold start")
    parser.add_argument("--out", help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as scratch:
        start_suite = args.start_suite
        if not os.path.isdir(start_suite):
            start_suite = os.path.join(scratch, "start")
            generate_suite(start_suite, 8)
        start = measure_start(start_suite, 3 * args.repeat)
        results: dict[str, Any] = {"machine": _machine(), "start": start, "load": [], "run": []}
        for size in sizes:
            folder = os.path.join(scratch, f"suite-{size}")
            total = generate_suite(folder, size)
            results["load"].append(measure_load(folder, total, args.repeat))
            for jobs in ("1", "auto"):
                results["run"].append(
                    measure_run(folder, jobs, start["python_c_pass_s"], args.repeat)
                )
    print(_table(results))
    if args.out:
        from harness.artifact import write_atomic

        write_atomic(args.out, msgspec.json.format(msgspec.json.encode(results), indent=2) + b"\n")
    return 0


def _machine() -> dict[str, Any]:
    from harness.pool import cpu_count

    return {"python": sys.version.split()[0], "platform": sys.platform, "cores": cpu_count()}


def _table(results: dict[str, Any]) -> str:
    from tabulate import tabulate

    start = results["start"]
    lines = [
        f"machine: {results['machine']}",
        "",
        "cold start (8-case suite, median)",
        tabulate(
            [
                ("python -c pass", f"{start['python_c_pass_s'] * 1e3:.1f} ms"),
                ("harness run", f"{start['harness_run_s'] * 1e3:.1f} ms"),
                ("harness run - python -c pass", f"{start['extra_s'] * 1e3:.1f} ms"),
            ],
            tablefmt="simple",
        ),
        "",
        "load and validate (median)",
        tabulate(
            [
                (
                    row["fixtures"],
                    f"{row['megabytes']:.1f}",
                    f"{row['read_files_s'] * 1e3:.0f}",
                    f"{row['json_loads_s'] * 1e3:.0f}",
                    f"{row['harness_load_s'] * 1e3:.0f}",
                    f"{row['harness_fixtures_per_s']:,.0f}",
                    f"{row['harness_mb_per_s']:.0f}",
                    f"{row['load_vs_read']:.2f}x",
                )
                for row in results["load"]
            ],
            headers=[
                "fixtures",
                "MB",
                "read ms",
                "json.loads ms",
                "harness ms",
                "fixtures/s",
                "MB/s",
                "vs read",
            ],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
        "harness run end to end (median; per case net of python start-up)",
        tabulate(
            [
                (
                    row["cases"],
                    row["jobs"],
                    f"{row['wall_s']:.3f}",
                    f"{row['per_case_us']:.0f}",
                    f"{row['peak_rss_mib']:.0f}",
                )
                for row in results["run"]
            ],
            headers=["cases", "jobs", "wall s", "us/case", "peak RSS MiB"],
            tablefmt="simple",
            disable_numparse=True,
        ),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

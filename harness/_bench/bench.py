"""`python -m harness._bench.bench`: how fast the harness loads, replays and starts, measured.

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
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from harness._bench.reuse import measure_reuse, reuse_alone, reuse_arguments, reuse_table
from harness._bench.spawner import Spawner, harness_command
from harness._bench.supervision import measure_supervision
from harness._bench.synthetic import generate_suite
from harness.reports.artifact import write_atomic

__all__ = ["main", "measure_load", "measure_run", "measure_start"]


def _seconds(work: Callable[[], object]) -> float:
    """How long `work` takes to make its result (freeing the result is not timed)."""
    started = time.perf_counter()
    result = work()
    elapsed = time.perf_counter() - started
    del result
    return elapsed


def _read_all(folder: str) -> list[bytes]:
    out = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as file:
                out.append(file.read())
    return out


def measure_load(folder: str, size: int, repeat: int, mix: str = "mix") -> dict[str, Any]:
    """Decode throughput against the two floors, on the same files in the same run."""
    from harness.fixtures.suite import load_suite

    count = len(os.listdir(folder))
    blobs = _read_all(folder)
    # The four are timed in turn within each repeat, so a slow spell of the machine weighs
    # on all of them alike; the ratios are the medians of the per-repeat ratios.
    # The loads with and without the duplicate-key check swap places every repeat, so that
    # neither always runs on the heap the other left.
    rounds = []
    for index in range(repeat):
        read = _seconds(lambda: _read_all(folder))
        loads = _seconds(lambda: [json.loads(blob) for blob in blobs])
        if index % 2:
            unchecked = _seconds(lambda: _without_duplicate_check(load_suite, folder))
            load = _seconds(lambda: load_suite(folder))
        else:
            load = _seconds(lambda: load_suite(folder))
            unchecked = _seconds(lambda: _without_duplicate_check(load_suite, folder))
        rounds.append((read, loads, load, unchecked))
    read_s, loads_s, load_s, unchecked_s = (
        statistics.median(column) for column in zip(*rounds, strict=True)
    )
    return {
        "mix": mix,
        "fixtures": count,
        "megabytes": size / 1e6,
        "read_files_s": read_s,
        "json_loads_s": loads_s,
        "harness_load_s": load_s,
        "harness_fixtures_per_s": count / load_s,
        "harness_mb_per_s": size / 1e6 / load_s,
        "load_vs_read": statistics.median(load / read for read, _, load, _ in rounds),
        "load_vs_json_loads_plus_read": statistics.median(
            load / (read + loads) for read, loads, load, _ in rounds
        ),
        "without_duplicate_check_s": unchecked_s,
        "duplicate_check_share": statistics.median(
            load / unchecked - 1 for _, _, load, unchecked in rounds
        ),
    }


def _without_duplicate_check(load: Callable[[str], object], folder: str) -> object:
    """`load(folder)` with the duplicate-key check switched off: what the check costs."""
    from harness.fixtures import reading

    checked = reading.duplicate_key  # type: ignore[attr-defined]
    reading.duplicate_key = _no_duplicate  # type: ignore[attr-defined]  # a mock costs more
    try:
        return load(folder)
    finally:
        reading.duplicate_key = checked  # type: ignore[attr-defined]


def _no_duplicate(data: bytes, trace: object) -> None:
    return None


_MODULES = (
    "import sys; {setup}; "
    "print(sum(1 for name in sys.modules if name == 'harness' or name.startswith('harness.')))"
)


def measure_start(spawner: Spawner, suite: str, repeat: int) -> dict[str, float]:
    """Cold start of `harness run` on a small suite, and of `import harness`, against
    `python -c pass`; and how many harness modules `import harness` and parsing `harness run`'s
    arguments each import."""
    import subprocess

    bare, bare_cpu, _ = spawner.times([sys.executable, "-c", "pass"], repeat)
    imported, _ = spawner.median([sys.executable, "-c", "import harness"], repeat)
    harness, harness_cpu, rss = spawner.times([*harness_command(), "run", "--suite", suite], repeat)
    parse = "from harness._cli.main import build_parser; build_parser('run').parse_args(['run'])"
    counts = [
        int(
            subprocess.run(
                [sys.executable, "-c", _MODULES.format(setup=setup)],
                capture_output=True,
                text=True,
                check=True,
                cwd=os.path.dirname(suite),
            ).stdout
        )
        for setup in ("import harness", parse)
    ]
    return {
        "python_c_pass_s": bare,
        "import_harness_s": imported,
        "harness_run_s": harness,
        "extra_s": harness - bare,
        "extra_cpu_s": harness_cpu - bare_cpu,
        "peak_rss_mib": rss / 1024,
        "import_harness_modules": counts[0],
        "parse_run_arguments_modules": counts[1],
    }


def measure_run(
    spawner: Spawner,
    folder: str,
    jobs: str,
    start: dict[str, float],
    repeat: int,
    mix: str = "mix",
) -> dict[str, Any]:
    """End-to-end `harness run` on a suite; per-case cost net of the harness's own start-up.

    `per_case_us` takes off `harness run` on the 8-case suite (interpreter, imports, config);
    `per_case_gross_us` only `python -c pass`.
    """
    count = len(os.listdir(folder))
    argv = [
        *harness_command(),
        "run",
        "--suite",
        folder,
        "--format",
        "json",
        "--jobs",
        jobs,
    ]
    wall, rss = spawner.median(argv, repeat)
    return {
        "mix": mix,
        "cases": count,
        "jobs": jobs,
        "wall_s": wall,
        "per_case_us": (wall - start["harness_run_s"]) / count * 1e6,
        "per_case_gross_us": (wall - start["python_c_pass_s"]) / count * 1e6,
        "peak_rss_mib": rss / 1024,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print (and optionally write) its figures."""
    parser = argparse.ArgumentParser(prog="python -m harness._bench", description=__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="suite sizes to generate")
    parser.add_argument("--repeat", type=int, default=5, help="repeats per figure (median)")
    parser.add_argument(
        "--start-suite", help="suite for the cold start (default: 8 generated cases of the mix)"
    )
    parser.add_argument(
        "--rss-sizes",
        help="suite sizes for peak RSS, all artifacts on (default: the largest "
        "of --sizes and ten times it)",
    )
    parser.add_argument("--slow-cases", type=int, default=200, help="cases for the jobs figures")
    reuse_arguments(parser)
    parser.add_argument("--out", help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    if args.reuse_only:
        reuse = reuse_alone(args.reuse_cases, args.reuse_start)
        print("\n".join(reuse_table(reuse)))
        return _write(args.out, {"reuse": reuse})
    sizes = [int(size) for size in args.sizes.split(",")]
    start_suite = os.path.abspath(args.start_suite) if args.start_suite else None
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as scratch:
        spawner = Spawner(cwd=scratch)  # first, while this process is still small
        try:
            results = _measure(spawner, scratch, sizes, start_suite, args.repeat)
            rss_sizes = (
                [int(size) for size in args.rss_sizes.split(",")]
                if args.rss_sizes
                else [max(sizes), 10 * max(sizes)]
            )
            _measure_more(spawner, scratch, results, rss_sizes, args.slow_cases, args.repeat)
            results["reuse"] = measure_reuse(spawner, scratch, args.reuse_cases, args.reuse_start)
        finally:
            spawner.close()
    print(_table(results))
    return _write(args.out, results)


def _write(out: str | None, results: dict[str, Any]) -> int:
    if out:
        write_atomic(out, msgspec.json.format(msgspec.json.encode(results), indent=2) + b"\n")
    return 0


def _measure(
    spawner: Spawner, scratch: str, sizes: list[int], start_suite: str | None, repeat: int
) -> dict[str, Any]:
    # The runs must measure the harness as installed (exit status 1 would pass for a failed case).
    spawner.run([sys.executable, "-c", "import harness"], ok=(0,))
    if start_suite is None:
        start_suite = os.path.join(scratch, "start")
        generate_suite(start_suite, 8)
    start = measure_start(spawner, start_suite, 3 * repeat)
    results: dict[str, Any] = {"machine": _machine(), "start": start, "load": [], "run": []}
    from harness._bench.table import measure_table

    results["table"] = measure_table(max(sizes), repeat)
    # Every size of the mix, serial and in workers; the largest also as simple text cases.
    plan: list[tuple[str, int, tuple[str, ...]]] = [("mix", size, ("1", "auto")) for size in sizes]
    plan.append(("text", max(sizes), ("1",)))
    plan.append(("defaults", max(sizes), ()))  # the duplicate-key check's precise path, loaded
    for mix, size, job_counts in plan:
        folder = os.path.join(scratch, f"{mix}-{size}")
        total = generate_suite(folder, size, mix=mix)
        os.sync()  # no write-back of the new files during the measurements
        # A load of 10k fixtures varies by some 5 % from one repeat to the next, as much as
        # the duplicate-key check costs: three times the repeats steady the check's figure.
        results["load"].append(measure_load(folder, total, 3 * repeat, mix))
        for jobs in job_counts:
            results["run"].append(measure_run(spawner, folder, jobs, start, repeat, mix))
        if mix == "mix" and size == min(sizes):
            results["supervision"] = measure_supervision(spawner, scratch, folder, repeat)
    return results


def _measure_more(
    spawner: Spawner,
    scratch: str,
    results: dict[str, Any],
    rss_sizes: list[int],
    slow_cases: int,
    repeat: int,
) -> None:
    """The outputs, memory and worker figures (`harness._bench.outputs`, `.workers`)."""
    from harness._bench.outputs import measure_memory, measure_outputs
    from harness._bench.workers import measure_jobs, measure_workers

    def suite(mix: str, size: int) -> str:
        folder = os.path.join(scratch, f"{mix}-{size}")
        if not os.path.isdir(folder):
            generate_suite(folder, size, mix=mix)
            os.sync()
        return folder

    biggest = max(rss_sizes[0], 1)
    results["outputs"] = measure_outputs(
        spawner, suite("mix", biggest), scratch, results["start"], repeat
    )
    results["memory"] = measure_memory(
        spawner, [suite("mix", size) for size in rss_sizes], scratch, 1
    )
    results["workers"] = measure_workers()
    results["jobs"] = measure_jobs(
        spawner, scratch, suite("echo", slow_cases), suite("echo", slow_cases * 50), repeat
    )


def _machine() -> dict[str, Any]:
    from harness._parallel import cpu_count

    return {"python": sys.version.split()[0], "platform": sys.platform, "cores": cpu_count()}


def _table_figure(table: dict[str, Any]) -> str:
    return (
        f"per-case table of {table['cases']} cases (median): harness "
        f"{table['harness_s'] * 1e3:.0f} ms, tabulate {table['tabulate_s'] * 1e3:.0f} ms "
        f"({table['tabulate_vs_harness']:.1f}x)"
    )


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
                ("the same, CPU time", f"{start['extra_cpu_s'] * 1e3:.1f} ms"),
                ("python -c 'import harness'", f"{start['import_harness_s'] * 1e3:.1f} ms"),
                ("harness modules: import harness", str(start["import_harness_modules"])),
                ("harness modules: parse run args", str(start["parse_run_arguments_modules"])),
            ],
            tablefmt="simple",
        ),
        "",
        "load and validate (median)",
        tabulate(
            [
                (
                    row["mix"],
                    row["fixtures"],
                    f"{row['megabytes']:.1f}",
                    f"{row['read_files_s'] * 1e3:.0f}",
                    f"{row['json_loads_s'] * 1e3:.0f}",
                    f"{row['harness_load_s'] * 1e3:.0f}",
                    f"{row['harness_fixtures_per_s']:,.0f}",
                    f"{row['harness_mb_per_s']:.0f}",
                    f"{row['load_vs_read']:.2f}x",
                    f"{row['duplicate_check_share'] * 100:+.1f}%",
                )
                for row in results["load"]
            ],
            headers=[
                "suite",
                "fixtures",
                "MB",
                "read ms",
                "json.loads ms",
                "harness ms",
                "fixtures/s",
                "MB/s",
                "vs read",
                "dup-key check",
            ],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
        "harness run end to end (median; per case net of harness start-up, and of python's)",
        tabulate(
            [
                (
                    row["mix"],
                    row["cases"],
                    row["jobs"],
                    f"{row['wall_s']:.3f}",
                    f"{row['per_case_us']:.0f}",
                    f"{row['per_case_gross_us']:.0f}",
                    f"{row['peak_rss_mib']:.0f}",
                )
                for row in results["run"]
            ],
            headers=["suite", "cases", "jobs", "wall s", "us/case", "gross", "peak RSS MiB"],
            tablefmt="simple",
            disable_numparse=True,
        ),
        "",
        _table_figure(results["table"]),
    ]
    if supervision := results.get("supervision"):
        lines += [
            "",
            f"a project agent, supervised ({supervision['cases']} cases, median): "
            f"{supervision['supervised_s']:.3f} s against {supervision['in_process_s']:.3f} s "
            f"in process, {supervision['extra_per_case_us']:.0f} us/case more "
            f"({supervision['ratio']:.2f}x)",
        ]
    if "outputs" in results:
        from harness._bench.outputs import more_tables

        lines += more_tables(results)
    if "reuse" in results:
        lines += reuse_table(results["reuse"])
    return "\n".join(lines)

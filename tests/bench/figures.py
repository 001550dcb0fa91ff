"""Bench figures for loading a suite, starting `harness run`, and running a suite end to end.

Each figure is measured against a floor on the same machine in the same run: loading against
reading the files and against `json.loads`; `harness run` against `python -c pass`. Machines
are noisy, so every figure is the median of several repeats and the ratios are what to compare.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from tests.bench.spawner import Spawner, harness_command

__all__ = ["measure_load", "measure_run", "measure_start"]


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
    """`harness.load_suite` against the two floors, on the same files in the same run."""
    from harness import load_suite

    count = len(os.listdir(folder))
    blobs = _read_all(folder)
    # The three are timed in turn within each repeat, so a slow spell of the machine weighs
    # on all of them alike; the ratios are the medians of the per-repeat ratios.
    rounds = [
        (
            _seconds(lambda: _read_all(folder)),
            _seconds(lambda: [json.loads(blob) for blob in blobs]),
            _seconds(lambda: load_suite(folder)),
        )
        for _ in range(repeat)
    ]
    read_s, loads_s, load_s = (statistics.median(column) for column in zip(*rounds, strict=True))
    return {
        "mix": mix,
        "fixtures": count,
        "megabytes": size / 1e6,
        "read_files_s": read_s,
        "json_loads_s": loads_s,
        "harness_load_s": load_s,
        "harness_fixtures_per_s": count / load_s,
        "harness_mb_per_s": size / 1e6 / load_s,
        "load_vs_read": statistics.median(load / read for read, _, load in rounds),
        "load_vs_json_loads_plus_read": statistics.median(
            load / (read + loads) for read, loads, load in rounds
        ),
    }


_MODULES = (
    "import sys; {setup}; "
    "print(sum(1 for name in sys.modules if name == 'harness' or name.startswith('harness.')))"
)


def _modules_imported(setup: str, cwd: str) -> int:
    """How many harness modules a fresh interpreter holds after running `setup`."""
    done = subprocess.run(
        [sys.executable, "-c", _MODULES.format(setup=setup)],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    return int(done.stdout)


def measure_start(spawner: Spawner, suite: str, repeat: int) -> dict[str, Any]:
    """Cold start of `harness run` on a small suite, and of `import harness`, against
    `python -c pass`; and how many harness modules `import harness` imports."""
    bare, bare_cpu, _ = spawner.times([sys.executable, "-c", "pass"], repeat)
    imported, _ = spawner.median([sys.executable, "-c", "import harness"], repeat)
    harness, harness_cpu, rss = spawner.times([*harness_command(), "run", "--suite", suite], repeat)
    return {
        "cases": len(os.listdir(suite)),
        "python_c_pass_s": bare,
        "import_harness_s": imported,
        "harness_run_s": harness,
        "extra_s": harness - bare,
        "extra_cpu_s": harness_cpu - bare_cpu,
        "peak_rss_mib": rss / 1024,
        # Not from a checkout, whose source tree would be imported instead of the package.
        "import_harness_modules": _modules_imported("import harness", os.path.dirname(suite)),
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

    `per_case_us` takes off `harness run` on the start-up suite (interpreter, imports, config);
    `per_case_gross_us` only `python -c pass`.
    """
    count = len(os.listdir(folder))
    argv = [*harness_command(), "run", "--suite", folder, "--format", "json", "--jobs", jobs]
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

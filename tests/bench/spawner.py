"""Running commands for the bench from a small process of its own, for honest figures."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence

__all__ = ["Spawner", "harness_command"]

# Peak RSS is read from wait4(), and a child's peak includes the memory of the process it
# was forked from: spawned by the bench itself, each `harness run` would be charged the
# bench's loaded suites. A small process started first does the spawning instead.
_SPAWNER = """
import json, os, subprocess, sys, time
for line in sys.stdin:
    argv = json.loads(line)
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    figures = [elapsed, os.waitstatus_to_exitcode(status), usage.ru_maxrss]
    print(json.dumps([*figures, usage.ru_utime + usage.ru_stime]), flush=True)
"""


class Spawner:
    """Runs commands from a small process of its own, for honest peak-RSS figures.

    The commands run in `cwd`: from a project's checkout, `python -m harness` would import
    the source tree beside it rather than the package as installed.
    """

    def __init__(self, cwd: str | None = None) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-c", _SPAWNER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=cwd,
        )
        stdin, stdout = self._process.stdin, self._process.stdout
        if stdin is None or stdout is None:  # cannot happen: both are pipes
            raise RuntimeError("bench: the spawner has no pipes")
        self._stdin, self._stdout = stdin, stdout

    def run(self, argv: Sequence[str], ok: tuple[int, ...] = (0, 1)) -> tuple[float, int]:
        """Wall time (s) and peak RSS (KiB) of one run of `argv`, which must exit in `ok`."""
        elapsed, rss, _ = self._run(argv, ok)
        return elapsed, rss

    def _figures(self, argv: Sequence[str]) -> tuple[float, int, int, float]:
        self._stdin.write(json.dumps(list(argv)) + "\n")
        self._stdin.flush()
        elapsed, status, rss, cpu = json.loads(self._stdout.readline())
        return elapsed, status, rss, cpu

    def _run(self, argv: Sequence[str], ok: tuple[int, ...]) -> tuple[float, int, float]:
        elapsed, status, rss, cpu = self._figures(argv)
        if status not in ok:
            raise SystemExit(f"bench: {' '.join(argv)} exited {status}")
        return elapsed, rss, cpu

    def attempt(self, argv: Sequence[str]) -> tuple[float, int, int]:
        """Wall time (s), exit status and peak RSS (KiB) of one run of `argv`, whatever its exit."""
        elapsed, status, rss, _ = self._figures(argv)
        return elapsed, status, rss

    def median(self, argv: Sequence[str], repeat: int) -> tuple[float, int]:
        """Median wall time and largest peak RSS over `repeat` runs."""
        runs = [self.run(argv) for _ in range(repeat)]
        return statistics.median(t for t, _ in runs), max(rss for _, rss in runs)

    def times(self, argv: Sequence[str], repeat: int) -> tuple[float, float, int]:
        """Median wall time, median CPU time (user and system, s) and largest peak RSS.

        On a machine shared with other work, the CPU time moves far less than the wall time.
        """
        runs = [self._run(argv, (0, 1)) for _ in range(repeat)]
        return (
            statistics.median(run[0] for run in runs),
            statistics.median(run[2] for run in runs),
            max(run[1] for run in runs),
        )

    def close(self) -> None:
        """Stop the spawning process."""
        self._stdin.close()
        self._process.wait()
        self._stdout.close()


def harness_command() -> list[str]:
    """`harness` as users start it: the console script installed beside this interpreter
    (`python -m harness` would add runpy's own start-up), or the module where there is none."""
    script = os.path.join(os.path.dirname(sys.executable), "harness")
    if os.access(script, os.X_OK):
        return [script]
    return [sys.executable, "-m", "harness"]

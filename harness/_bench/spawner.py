"""Running commands for the bench from a small process of its own, for honest figures."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Sequence

__all__ = ["Spawner"]

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
    print(json.dumps([elapsed, os.waitstatus_to_exitcode(status), usage.ru_maxrss]), flush=True)
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
        self._stdin.write(json.dumps(list(argv)) + "\n")
        self._stdin.flush()
        elapsed, status, rss = json.loads(self._stdout.readline())
        if status not in ok:
            raise SystemExit(f"bench: {' '.join(argv)} exited {status}")
        return elapsed, rss

    def median(self, argv: Sequence[str], repeat: int) -> tuple[float, int]:
        """Median wall time and largest peak RSS over `repeat` runs."""
        runs = [self.run(argv) for _ in range(repeat)]
        return statistics.median(t for t, _ in runs), max(rss for _, rss in runs)

    def close(self) -> None:
        """Stop the spawning process."""
        self._stdin.close()
        self._process.wait()
        self._stdout.close()

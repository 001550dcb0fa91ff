"""Agents that misbehave the way real ones do, one behaviour per case name.

`misbehaving` builds the reference loop for a well-behaved case; for a case named after a
behaviour it prints, floods, exits, crashes, raises what is not an `Exception`, allocates
without end, or starts processes meant to outlive the case (their ids go into the folder
named by `HARNESS_TEST_PIDS`, one file each).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from harness import CaseContext
from harness.replay.agent import ReferenceAgent

SLEEPER = [sys.executable, "-c", "import time; time.sleep(300)"]


def _note_pid(pid: int) -> None:
    folder = os.environ.get("HARNESS_TEST_PIDS")
    if folder:
        with open(os.path.join(folder, f"{pid}.pid"), "w") as file:
            file.write(str(pid))


def _spawn_daemon() -> None:
    """A grandchild that leaves its parent's session (double fork, setsid), then sleeps."""
    helper = (
        "import os, subprocess, sys\n"
        "p = subprocess.Popen(sys.argv[1:], start_new_session=True,\n"
        "                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(p.pid, flush=True)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", helper, *SLEEPER], capture_output=True, text=True, check=True
    )
    _note_pid(int(out.stdout))


class _Misbehaving(ReferenceAgent):
    def __init__(self, context: CaseContext, behaviour: str) -> None:
        super().__init__(context.provider, context.tools)
        self._behaviour = behaviour

    def turn(self, user_input: str) -> str:
        act = getattr(self, f"_{self._behaviour.replace('-', '_')}", None)
        if act is not None:
            act()
        return super().turn(user_input)

    def _printer(self) -> None:
        print("DEBUG: hello from print")
        print("WARN: on stderr", file=sys.stderr)
        os.write(1, b"raw fd write\n")
        subprocess.run(["sh", "-c", "echo from a child process"], check=True)
        print("token=sk-abcdefghijklmnopqrstuvwxyz0123456789")

    def _flood(self) -> None:
        chunk = "x" * (1 << 20)
        for _ in range(50):
            sys.stdout.write(chunk)

    def _exit3(self) -> None:
        sys.exit(3)

    def _exit0(self) -> None:
        sys.exit(0)

    def _hard_exit4(self) -> None:
        os._exit(4)

    def _hard_exit0(self) -> None:
        os._exit(0)

    def _keyboard(self) -> None:
        raise KeyboardInterrupt

    def _generator_exit(self) -> None:
        raise GeneratorExit("closed")

    def _spawner(self) -> None:
        child = subprocess.Popen(SLEEPER)
        _note_pid(child.pid)
        _spawn_daemon()

    def _verify_reaped(self) -> None:
        """Run after `spawner`: every process it started must be gone already."""
        folder = os.environ["HARNESS_TEST_PIDS"]
        for name in os.listdir(folder):
            pid = int(name.removesuffix(".pid"))
            try:
                with open(f"/proc/{pid}/stat", "rb") as file:
                    stat = file.read()
            except OSError:
                continue
            if stat[stat.rfind(b")") + 2 :][:1] != b"Z":
                raise RuntimeError(f"process {pid} of an earlier case is still alive")

    def _deaf(self) -> None:
        """Hang where the worker's timer cannot reach: SIGALRM blocked."""
        import signal
        import time

        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(300)

    def _hang(self) -> None:
        import time

        time.sleep(300)

    def _hog(self) -> None:
        hoard: list[bytes] = []
        while True:
            hoard.append(b"\0" * (16 << 20))


class _Custom(BaseException):
    pass


def _raise_custom() -> Any:
    raise _Custom("custom base exception")


def misbehaving(context: CaseContext) -> Any:
    """The agent factory: a case named after a behaviour gets it; any other, the plain loop."""
    if context.case_name == "factory-exit":
        sys.exit(5)
    if context.case_name == "custom-base":
        return _raise_custom()
    return _Misbehaving(context, context.case_name)

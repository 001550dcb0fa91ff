"""Lifelines: a harness killed by any signal leaves none of its workers or agents behind."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.builders import echo_trace
from tests.conftest import WriteFixture

# A parent that loads in workers (fork_shares, as the suite loader does, or the pool of
# run_in_workers) whose work blocks: each worker writes its pid, then waits for ever.
SCRIPT = """
import os, sys, time
from harness._parallel import fork_shares, run_in_workers

folder = sys.argv[2]

def block(items):
    with open(os.path.join(folder, str(os.getpid())), "w"):
        pass
    time.sleep(3600)
    return 0

def task(item, state):
    return block([item])

if sys.argv[1] == "shares":
    fork_shares(block, list(range(6)), 3, int)
else:
    list(run_in_workers(task, list(range(6)), None, 2, item_type=int, result_type=int,
                        crashed=lambda index: 0))
"""


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie has no state but Z)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def wait_for(predicate: object, what: str) -> None:
    """Poll `predicate` until it holds; fail naming `what` if it never does."""
    assert callable(predicate)
    for _ in range(600):
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"never: {what}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("how", ["shares", "pool"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP, signal.SIGUSR1], ids=str)
def test_no_worker_outlives_a_killed_parent(how: str, sig: signal.Signals, tmp_path: Path) -> None:
    """SIGKILL, SIGHUP or SIGUSR1 to the parent mid-load: every worker it forked ends too."""
    parent = subprocess.Popen([sys.executable, "-c", SCRIPT, how, str(tmp_path)])
    try:
        wait_for(lambda: len(os.listdir(tmp_path)) >= 2, "the workers started")
        assert all(alive(int(name)) for name in os.listdir(tmp_path))
        parent.send_signal(sig)
        parent.wait()
        wait_for(lambda: not any(alive(int(n)) for n in os.listdir(tmp_path)), "workers ended")
    finally:
        parent.kill()
        parent.wait()
        for name in os.listdir(tmp_path):  # a failed test leaves no process behind either
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(name), signal.SIGKILL)


def test_a_child_whose_parent_is_gone_ends_at_once() -> None:
    """Tied to a pid that is not its parent (the parent died before the tie): it exits."""
    code = "import os; from harness.lifeline import die_with_parent as tie; "
    code += "tie(os.getppid() + 1_000_000); os._exit(7)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 1


HANGING_AGENT = """
import os, sys, time
open(os.path.join(sys.argv[1], str(os.getpid())), "w").close()
time.sleep(3600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_no_agent_outlives_a_killed_harness(
    jobs: str, tmp_path: Path, write_fixture: WriteFixture
) -> None:
    """SIGKILL to `harness run` mid-case: each agent command (its own session) ends too."""
    write_fixture("a.json", echo_trace(model_name="a"))
    suite = write_fixture("b.json", echo_trace(model_name="b")).parent
    pids = tmp_path / "pids"
    pids.mkdir()
    agent = tmp_path / "agent.py"
    agent.write_text(HANGING_AGENT)
    command = f"{sys.executable} {agent} {pids}"
    argv = ["run", "--suite", str(suite), "--jobs", jobs, "--agent-command", command]
    harness = subprocess.Popen(
        [sys.executable, "-m", "harness", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: len(os.listdir(pids)) >= int(jobs), "the agents started")
        harness.kill()
        harness.wait()
        wait_for(lambda: not any(alive(int(n)) for n in os.listdir(pids)), "agents ended")
    finally:
        harness.kill()
        harness.wait()
        for name in os.listdir(pids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(name), signal.SIGKILL)

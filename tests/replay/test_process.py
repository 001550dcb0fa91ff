"""AgentProcess: bounded reads of a subprocess agent's stdout, and its process group ended."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import harness.replay.process as process
from harness.errors import AgentError
from harness.replay.process import AgentProcess, end_group

ENDLESS = "import sys\nsys.stdin.readline()\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
MANY_LINES = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    print(json.dumps({'response': 'y' * 1000}), flush=True)\n"
)


def agent(script: str) -> AgentProcess:
    return AgentProcess([sys.executable, "-c", script], {})


def test_a_line_without_end_is_refused_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent writing without a newline errors its case at the line cap, not at OOM."""
    monkeypatch.setattr(process, "MAX_LINE_BYTES", 1 << 20)
    proc = agent(ENDLESS)
    try:
        with pytest.raises(AgentError, match="wrote a line over 1048576 bytes"):
            proc.turn("go")
    finally:
        proc.close()


def test_all_a_case_reads_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-case cap holds across lines: over it, the case errors."""
    monkeypatch.setattr(process, "MAX_STDOUT_BYTES", 10_000)
    proc = agent(MANY_LINES)
    try:
        for _ in range(9):  # 9 answers of 1 KB fit in the cap
            assert proc.turn("go") == "y" * 1000
        with pytest.raises(AgentError, match="over 10000 bytes to stdout in one case"):
            proc.turn("go")
    finally:
        proc.close()


def test_the_group_outlives_its_leader_and_is_ended(tmp_path: Path) -> None:
    """A grandchild left by an exited leader still gets SIGTERM through the group."""
    noted = tmp_path / "pid"
    script = (
        "import subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        "open(sys.argv[1], 'w').write(str(p.pid))\n"
    )
    proc = AgentProcess([sys.executable, "-c", script, str(noted)], {})
    try:
        for _ in range(1000):
            if noted.exists() and noted.read_text():
                break
            time.sleep(0.01)
        grandchild = int(noted.read_text())
    finally:
        proc.close()
    for _ in range(500):  # it is init's child now: reaped there, not here
        if not os.path.exists(f"/proc/{grandchild}") or _zombie(grandchild):
            break
        time.sleep(0.01)
    assert not os.path.exists(f"/proc/{grandchild}") or _zombie(grandchild)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 :][:1] == b"Z"


def test_ending_an_empty_group_is_quiet() -> None:
    """No member left: nothing to signal, no error."""
    end_group(2**22 + 12345, grace=0.01)


HOG = (
    "import sys\n"
    "sys.stdin.readline()\n"
    "hoard = []\n"
    "while True:\n"
    "    hoard.append(bytearray(16 << 20))\n"
)


def test_a_subprocess_agent_is_held_to_its_memory_limit() -> None:
    """agent_memory_mb caps the agent's address space: it fails to allocate and its turn errs."""
    proc = AgentProcess([sys.executable, "-c", HOG], {}, memory_mb=200)
    try:
        with pytest.raises(AgentError) as caught:
            proc.turn("go")
    finally:
        proc.close()
    assert "exited with status 1 without answering the turn" in str(caught.value)
    assert "MemoryError" in str(caught.value)


DEEP_CRASH = (
    "import sys\n"
    "sys.stdin.readline()\n"
    "for frame in range(200):\n"
    "    sys.stderr.write(f'  File \"/lib/tool.py\", line {frame}, in _execute_tool_sync\\n')\n"
    "sys.stderr.write('RuntimeError: echo backend unavailable\\n\\n')\n"
    "sys.exit(1)\n"
)


def test_a_crash_keeps_the_exception_line_whole() -> None:
    """A long traceback: the last non-empty stderr line is kept whole, context from a line."""
    proc = agent(DEEP_CRASH)
    try:
        with pytest.raises(AgentError) as caught:
            proc.turn("go")
    finally:
        proc.close()
    message = str(caught.value)
    assert message.endswith("\nRuntimeError: echo backend unavailable")
    context = message.split("; stderr: ", 1)[1]
    assert context.startswith('  File "/lib/tool.py", line ')
    assert len(context) <= process.STDERR_TAIL + 1


def test_a_process_that_outlives_cases_dies_with_its_parent(tmp_path: Path) -> None:
    """die_with_parent: a parent killed outright (no cleanup) takes its agent process along."""
    noted = tmp_path / "pid"
    parent = (
        "import os, sys\n"
        "from harness.replay.process import AgentProcess\n"
        "p = AgentProcess([sys.executable, '-c', 'import time; time.sleep(300)'], {},"
        " die_with_parent=True)\n"
        "open(sys.argv[1], 'w').write(str(p.pid))\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", parent, str(noted)], check=True, timeout=60)
    agent_pid = int(noted.read_text())
    for _ in range(500):
        if not os.path.exists(f"/proc/{agent_pid}") or _zombie(agent_pid):
            break
        time.sleep(0.01)
    assert not os.path.exists(f"/proc/{agent_pid}") or _zombie(agent_pid)

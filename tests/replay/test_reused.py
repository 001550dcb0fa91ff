"""ReusedProcess: the case-boundary lines, and a process that can no longer be trusted."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

import harness.replay.process as process
from harness.errors import AgentError
from harness.replay.reused import ReusedProcess

# Answers each turn with every line it has read so far; `stray` adds a line after it.
ECHOING = """
import json, sys
seen = []
for line in sys.stdin:
    seen.append(json.loads(line))
    if "user_input" in seen[-1]:
        print(json.dumps({"response": json.dumps(seen)}), flush=True)
        if seen[-1]["user_input"] == "stray":
            print("and one more thing", flush=True)
        if seen[-1]["user_input"] == "flood":
            print(json.dumps({"response": "x" * 5000}), flush=True)
"""


def reused() -> ReusedProcess:
    return ReusedProcess([sys.executable, "-c", ECHOING], None, None)


def play(owner: ReusedProcess, name: str, user_input: str) -> list[object]:
    guard = owner.guard(name, [user_input], lambda: 0)
    agent = owner.play(name, f"/w/{name}", {}, guard)
    seen: list[object] = json.loads(agent.turn(user_input))
    agent.close()
    return seen


def test_each_case_is_opened_and_closed_by_its_lines() -> None:
    """`case` with the workspace before the turns, `end` after them, in one process."""
    owner = reused()
    try:
        play(owner, "a", "hi")
        pid = owner.pid
        seen = play(owner, "b", "ho")
        assert owner.pid == pid
    finally:
        owner.end()
    assert seen == [
        {"case": "a", "workspace": "/w/a"},
        {"user_input": "hi"},
        {"end": "a"},
        {"case": "b", "workspace": "/w/b"},
        {"user_input": "ho"},
    ]


def test_output_beyond_the_answers_errors_the_case_and_ends_the_process() -> None:
    """A line after the answer is a protocol violation: the case errors, the process is gone."""
    owner = reused()
    try:
        guard = owner.guard("a", ["stray"], lambda: 0)
        agent = owner.play("a", "/w", {}, guard)
        agent.turn("stray")
        pid = owner.pid
        for _ in range(1000):  # the stray line follows the answer by a moment
            if not owner.sound:
                break
            time.sleep(0.01)
        with pytest.raises(AgentError, match="wrote to stdout beyond"):
            agent.close()
        assert owner.broken
    finally:
        owner.end()
    assert pid is not None
    assert not os.path.exists(f"/proc/{pid}") or _zombie(pid)


def test_output_past_the_cap_is_counted_per_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each case starts a fresh count; over the cap in one case, the process is not sound."""
    monkeypatch.setattr(process, "MAX_STDOUT_BYTES", 4000)
    owner = reused()
    try:
        for name in ("a", "b", "c"):  # 3 x about 200 bytes: under the cap only if per case
            play(owner, name, "hi")
        assert owner.sound
        guard = owner.guard("d", ["flood"], lambda: 0)
        agent = owner.play("d", "/w", {}, guard)
        agent.turn("flood")
        with pytest.raises(AgentError, match="over 4000 bytes to stdout in one case"):
            agent.turn("flood")
        agent.close()
        assert not owner.sound
    finally:
        owner.end()


def test_a_process_dead_between_cases_is_not_sound() -> None:
    """A process that exited after its case is replaced rather than handed the next one."""
    owner = ReusedProcess([sys.executable, "-c", "import sys; sys.stdin.readline()"], None, None)
    try:
        guard = owner.guard("a", [], lambda: 0)
        owner.play("a", "/w", {}, guard).close()
        assert owner._process is not None
        owner._process._process.wait(timeout=10)
        assert not owner.sound
    finally:
        owner.end()


def _zombie(pid: int) -> bool:
    with open(f"/proc/{pid}/stat", "rb") as file:
        stat = file.read()
    return stat[stat.rfind(b")") + 2 :][:1] == b"Z"


def test_an_answer_that_is_not_the_protocol_ends_the_process() -> None:
    """A line that is not `{"response": ...}` errors the turn; the process is ended after it."""
    script = "import sys\nsys.stdin.readline(); sys.stdin.readline()\nprint('hello', flush=True)\n"
    owner = ReusedProcess([sys.executable, "-c", script + "sys.stdin.read()\n"], None, None)
    try:
        agent = owner.play("a", None, {}, owner.guard("a", ["hi"], lambda: 0))
        with pytest.raises(AgentError, match="wrote 'hello', not"):
            agent.turn("hi")
        pid = owner.pid
        agent.close()
        assert not owner.sound
    finally:
        owner.end()
    assert pid is not None
    assert not os.path.exists(f"/proc/{pid}") or _zombie(pid)


def test_a_process_that_died_between_cases_is_replaced_for_the_next() -> None:
    """Found dead at the next case line, it is started again: that case does not error."""
    script = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    if 'end' in json.loads(line):\n"
        "        sys.exit(0)\n"
        "    if 'user_input' in json.loads(line):\n"
        "        print(json.dumps({'response': 'ok'}), flush=True)\n"
    )
    owner = ReusedProcess([sys.executable, "-c", script], None, None)
    try:
        first = owner.play("a", None, {}, owner.guard("a", ["hi"], lambda: 0))
        assert first.turn("hi") == "ok"
        pid = owner.pid
        first.close()
        assert owner._process is not None
        owner._process._process.wait(timeout=10)  # gone before the next case line
        second = owner.play("b", None, {}, owner.guard("b", ["hi"], lambda: 0))
        assert second.turn("hi") == "ok"
        assert owner.pid != pid
    finally:
        owner.end()

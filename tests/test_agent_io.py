"""agent_io: a Python agent gets one case and one turn at a time, in both modes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# Answers each turn with the case's name, workspace, turn number and input; prints a note.
AGENT = """
from harness.agent_io import cases

for case in cases():
    for number, user_input in enumerate(case):
        print("a note that must not reach stdout")
        case.respond(f"{case.name}|{case.workspace}|{number}|{user_input}")
"""


def run(lines: list[dict[str, Any]], script: str = AGENT, **env: str) -> tuple[list[Any], str]:
    """The agent's answers to `lines` on stdin, and its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        input="".join(json.dumps(line) + "\n" for line in lines),
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_reuse_lines_give_one_case_after_another() -> None:
    """`case` opens a case with its name and workspace, `end` closes it; turns count afresh."""
    answers, _ = run(
        [
            {"case": "a", "workspace": "/w/a", "later": "ignored"},
            {"user_input": "hi"},
            {"user_input": "again"},
            {"end": "a"},
            {"case": "b", "workspace": "/w/b"},
            {"user_input": "ho"},
            {"end": "b"},
        ]
    )
    assert answers == [
        {"response": "a|/w/a|0|hi"},
        {"response": "a|/w/a|1|again"},
        {"response": "b|/w/b|0|ho"},
    ]


def test_without_reuse_the_case_comes_from_the_environment() -> None:
    """Turns without a `case` line are one case, named and placed by the environment."""
    lines = [{"user_input": "hi"}, {"user_input": "again"}]
    answers, _ = run(lines, HARNESS_CASE="solo", HARNESS_WORKSPACE="/w/solo")
    assert answers == [{"response": "solo|/w/solo|0|hi"}, {"response": "solo|/w/solo|1|again"}]


def test_what_the_agent_prints_goes_to_stderr() -> None:
    """A stray print cannot break the protocol: stdout holds only the answers."""
    answers, stderr = run([{"user_input": "hi"}])
    assert len(answers) == 1
    assert "a note that must not reach stdout" in stderr


def test_a_turn_left_unanswered_is_refused() -> None:
    """Reading the next turn before answering the last is an error, not a silent skip."""
    script = "from harness.agent_io import cases\nfor case in cases():\n    list(case)\n"
    answers, stderr = run([{"user_input": "hi"}, {"user_input": "ho"}], script)
    assert answers == []
    assert "respond() to a turn before the next" in stderr

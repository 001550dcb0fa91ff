"""The harness's agent protocol for a Python agent: one case, then one turn, at a time.

An `agent_command` agent reads JSON lines on stdin and answers on stdout. This module reads
them for it, in both modes (with `agent_reuse`, one process plays many cases; without it, one
case per process), and imports nothing but the standard library, so an agent can use it in its
own interpreter::

    from harness.agent_io import cases

    for case in cases():
        messages = []  # a fresh conversation for each case
        for user_input in case:
            messages.append({"role": "user", "content": user_input})
            ...  # call the model at OPENAI_BASE_URL with OPENAI_API_KEY, run tools
            case.respond(answer)

`case.name` is the case's name and `case.workspace` its folder (None for a case without one:
a case has one when its fixture seeds files or checks them). While `cases()` runs, what the
agent prints goes to stderr (the case's captured output), so a stray `print` cannot break the
protocol on stdout.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["Case", "cases"]


class Case:
    """One case: iterate it for its user inputs; `respond` once to each."""

    def __init__(self, lines: _Lines, name: str, workspace: str | None, first: str | None) -> None:
        self.name = name
        """The case's name (the fixture's `model_name`)."""
        self.workspace = workspace
        """The case's own folder (None for a case without one)."""
        self._lines = lines
        self._first = first
        self._owed = False
        self.ended = False
        """Whether the harness closed the case (every turn was played)."""

    def __iter__(self) -> Iterator[str]:
        while not self.ended:
            if self._owed:
                raise RuntimeError(f"case {self.name!r}: respond() to a turn before the next")
            line = self._next()
            if line is None or "end" in line or "case" in line:
                self.ended = True
                if line is not None and "case" in line:
                    self._lines.push(line)  # the next case opened without an end line
                return
            text = line.get("user_input")
            if not isinstance(text, str):
                raise ValueError(f"expected a user_input line, got {line!r}")
            self._owed = True
            yield text

    def respond(self, text: str) -> None:
        """Answer the turn just read with the agent's final text."""
        if not self._owed:
            raise RuntimeError(f"case {self.name!r}: respond() without a turn to answer")
        if not isinstance(text, str):
            raise TypeError(f"respond() takes a str, not {type(text).__name__}")
        self._owed = False
        self._lines.write({"response": text})

    def _next(self) -> dict[str, Any] | None:
        if self._first is not None:
            first, self._first = self._first, None
            return {"user_input": first}
        return self._lines.read()


def cases() -> Iterator[Case]:
    """Each case the harness plays, in order, until stdin ends."""
    lines = _Lines(sys.stdin.buffer, _protocol_out())
    while True:
        line = lines.read()
        if line is None:
            return
        case = _opened(lines, line)
        yield case
        for _ in case:  # turns the agent did not read: the case is over for it
            case.respond("")


def _opened(lines: _Lines, line: dict[str, Any]) -> Case:
    """The case a first line opens: a `case` line (reuse), or a turn (one case a process)."""
    if "case" in line:
        workspace = line.get("workspace")
        folder = workspace if isinstance(workspace, str) and workspace else None
        return Case(lines, str(line["case"]), folder, None)
    text = line.get("user_input")
    if not isinstance(text, str):
        raise ValueError(f"expected a case or user_input line, got {line!r}")
    name = os.environ.get("HARNESS_CASE", "")
    return Case(lines, name, os.environ.get("HARNESS_WORKSPACE") or None, text)


class _Lines:
    """The JSON lines read from the harness and written back to it."""

    def __init__(self, stdin: IO[bytes], stdout: IO[str]) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._pushed: list[dict[str, Any]] = []

    def read(self) -> dict[str, Any] | None:
        if self._pushed:
            return self._pushed.pop()
        raw = self._stdin.readline()
        if not raw:
            return None
        line = json.loads(raw)
        if not isinstance(line, dict):
            raise ValueError(f"expected a JSON object, got {raw[:200]!r}")
        return line

    def push(self, line: dict[str, Any]) -> None:
        self._pushed.append(line)

    def write(self, line: dict[str, Any]) -> None:
        self._stdout.write(json.dumps(line) + "\n")
        self._stdout.flush()


def _protocol_out() -> IO[str]:
    """The protocol's own stdout; from now on, fd 1 and `sys.stdout` go to stderr."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out

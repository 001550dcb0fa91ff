"""An agent in any language, run as a subprocess that speaks JSON lines.

The harness starts `agent_command` once per case with `OPENAI_BASE_URL` and `OPENAI_API_KEY`
pointing at the case's replay endpoint, then, for each turn, writes one line
`{"user_input": "..."}` to the agent's stdin and reads one line `{"response": "..."}` from its
stdout. After the last turn it closes stdin; the agent should exit. Anything the agent writes
to stderr is kept and shown if it fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence

from harness.errors import AgentError

__all__ = ["AgentProcess"]

STDERR_TAIL = 2000
"""Characters of the agent's stderr shown when it fails."""


class AgentProcess:
    """The `Agent` protocol over a subprocess's stdin and stdout."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: str | None = None) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
        try:
            self._process = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env={**os.environ, **env},
                cwd=cwd,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        except OSError as exc:
            self._stderr.close()
            raise AgentError(
                f"cannot start the agent command {argv[0]!r}: {exc.strerror or exc}"
            ) from None

    def turn(self, user_input: str) -> str:
        """Send one user turn; return the agent's response line."""
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None  # a pipe
        assert stdout is not None  # a pipe
        try:
            stdin.write(json.dumps({"user_input": user_input}) + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died("before it read the turn") from None
        line = stdout.readline()
        if not line:
            raise self._died("without answering the turn")
        try:
            answer = json.loads(line)
        except ValueError:
            raise AgentError(
                f'the agent process wrote {line.strip()[:200]!r}, not {{"response": "..."}}'
            ) from None
        if not isinstance(answer, dict) or not isinstance(answer.get("response"), str):
            raise AgentError(
                f'the agent process answered {line.strip()[:200]!r}, expected {{"response": "..."}}'
            )
        return str(answer["response"])

    def close(self) -> None:
        """End the process: close stdin, give it a moment to exit, then kill it."""
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):  # the process may be gone already
                self._process.stdin.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._stderr.close()

    def _died(self, when: str) -> AgentError:
        code = self._process.poll()
        if code is None:
            try:
                code = self._process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                code = None
        status = f"exited with status {code}" if code is not None else "stopped talking"
        return AgentError(f"the agent process {status} {when}{self._stderr_tail()}")

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace").strip()
        return f"; stderr: {text[-STDERR_TAIL:]}" if text else ""

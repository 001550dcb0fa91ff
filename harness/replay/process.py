"""An agent in any language, run as a subprocess that speaks JSON lines.

The harness starts `agent_command` once per case with `OPENAI_BASE_URL` and `OPENAI_API_KEY`
pointing at the case's replay endpoint, then, for each turn, writes one line
`{"user_input": "..."}` to the agent's stdin and reads one line `{"response": "..."}` from its
stdout. After the last turn it closes stdin; the agent should exit. Anything the agent writes
to stderr is kept and shown if it fails, and handed on to the case's captured stderr.

The agent runs in its own session, so its process group holds it and every process it starts.
When the case ends, times out or the agent dies, the whole group gets SIGTERM, then SIGKILL
after a short grace: nothing it started outlives its case. The agent itself dies with the
process that started it, whatever signal ends that (`harness.lifeline`), so a harness killed
mid-case leaves no agent behind. Its stdout is read with a cap per
line and per case, so an agent that writes without a newline cannot exhaust the harness's
memory; over either cap the case errors.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence

from harness.errors import AgentError
from harness.lifeline import tied

__all__ = [
    "GRACE_S",
    "MAX_LINE_BYTES",
    "MAX_STDOUT_BYTES",
    "AgentProcess",
    "end_group",
    "limit_memory",
]

STDERR_TAIL = 2000
"""Characters of the agent's stderr shown when it fails."""
STDERR_KEPT = 4 * 1024 * 1024
"""Bytes of the agent's stderr handed on to the case's captured output (which cuts it further)."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""The longest answer line read from a subprocess agent."""
MAX_STDOUT_BYTES = 64 * 1024 * 1024
"""All a subprocess agent may write to stdout in one case."""
GRACE_S = 2.0
"""Seconds between SIGTERM and SIGKILL for a process group that outlives its case."""


class AgentProcess:
    """The `Agent` protocol over a subprocess's stdin and stdout."""

    def __init__(
        self,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: str | None = None,
        *,
        memory_mb: int | None = None,
    ) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
        self._read = 0
        self._closed = False
        try:
            self._process = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env={**os.environ, **env},
                cwd=cwd,
                start_new_session=True,
                preexec_fn=_before_exec(memory_mb),
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
            stdin.write(json.dumps({"user_input": user_input}).encode() + b"\n")
            stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died("before it read the turn") from None
        raw = stdout.readline(min(MAX_LINE_BYTES, MAX_STDOUT_BYTES - self._read) + 1)
        self._read += len(raw)
        if not raw:
            raise self._died("without answering the turn")
        if self._read > MAX_STDOUT_BYTES:
            self._end()
            raise AgentError(
                f"the agent process wrote over {MAX_STDOUT_BYTES} bytes to stdout in one case"
            )
        if len(raw) > MAX_LINE_BYTES:
            self._end()
            raise AgentError(
                f"the agent process wrote a line over {MAX_LINE_BYTES} bytes to stdout, "
                'not one {"response": "..."}'
            )
        line = raw.decode("utf-8", "replace")
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
        """End the process: close stdin, give it a moment to exit, then end its whole group.

        What it wrote to stderr goes on to this process's stderr, which is the case's
        captured output while a case runs.
        """
        if self._closed:
            return
        self._closed = True
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):  # the process may be gone already
                self._process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)
        self._end()
        if self._process.stdout is not None:
            self._process.stdout.close()
        with self._stderr:
            self._stderr.seek(0)
            kept = self._stderr.read(STDERR_KEPT)
        with contextlib.suppress(OSError):
            _write_all(2, kept)

    def _end(self) -> None:
        """SIGTERM, then SIGKILL, to the agent's group: it and every process it started."""
        end_group(self._process.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=GRACE_S)

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
        size = self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, size - 4 * STDERR_TAIL))
        text = self._stderr.read().decode("utf-8", "replace").strip()
        return f"; stderr: {text[-STDERR_TAIL:]}" if text else ""


def end_group(pgid: int, grace: float = GRACE_S) -> None:
    """SIGTERM the process group `pgid`, then SIGKILL it if anyone in it is left after `grace`.

    The group outlives its leader while any member lives, and its id is not reused until then,
    so this reaches the grandchildren of a leader that has already exited.
    """
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return  # nobody left in it
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        _reap_group(pgid)  # a member that is this process's child stays a zombie until reaped
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.01)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _reap_group(pgid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-pgid, os.WNOHANG)[0]:
            pass


def limit_memory(megabytes: int, *, beyond: int = 0) -> None:
    """Cap this process's address space at `megabytes` MiB more than `beyond` bytes."""
    import resource

    limit = beyond + megabytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _before_exec(megabytes: int | None) -> Callable[[], None]:
    """What the agent's child runs before exec: it dies with this process, whatever signal
    ends it (an agent in its own session is no one's to end otherwise), and gets its memory
    limit, if there is one."""
    tie = tied()

    def prepare() -> None:
        tie()
        if megabytes is not None:
            limit_memory(megabytes)

    return prepare


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]

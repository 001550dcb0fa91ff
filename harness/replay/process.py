"""An agent in any language, run as a subprocess that speaks JSON lines.

The harness starts `agent_command` with `OPENAI_BASE_URL` and `OPENAI_API_KEY` pointing at the
replay endpoint, then, for each turn, writes one line `{"user_input": "..."}` to the agent's
stdin and reads one line `{"response": "..."}` from its stdout. Without reuse the process
serves one case: after its last turn stdin is closed and the agent should exit. With reuse
(`replay.reused`) one process serves case after case, each opened by a `{"case": ...}` line
and closed by an `{"end": ...}` line. Anything the agent writes to stderr is kept, shown if
it fails, and handed on to the captured stderr of the case it was written in.

The agent runs in its own session, so its process group holds it and every process it starts.
When the process is done with, times out or dies, the whole group gets SIGTERM, then SIGKILL
after a short grace: nothing it started outlives it. The agent itself dies with the process
that started it, whatever signal ends that (`harness.lifeline`), so a harness killed mid-case
leaves no agent behind. Its stdout is read with a cap per line and per case, so an agent that
writes without a newline cannot exhaust the harness's memory; over either cap the case errors.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

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
"""Bytes of the agent's stderr handed on to a case's captured output (which cuts it further)."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""The longest answer line read from a subprocess agent."""
MAX_STDOUT_BYTES = 64 * 1024 * 1024
"""All a subprocess agent may write to stdout in one case."""
GRACE_S = 2.0
"""Seconds between SIGTERM and SIGKILL for a process group that outlives its case."""
_CHUNK = 64 * 1024


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
        self._case_stderr = 0  # where the current case's stderr starts
        self._read = 0
        self._buffer = bytearray()
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
                bufsize=0,
            )
        except OSError as exc:
            self._stderr.close()
            raise AgentError(
                f"cannot start the agent command {argv[0]!r}: {exc.strerror or exc}"
            ) from None

    @property
    def pid(self) -> int:
        """The agent's process id, which is also its process group's."""
        return self._process.pid

    @property
    def alive(self) -> bool:
        """Whether the agent process still runs."""
        return self._process.poll() is None

    def turn(self, user_input: str) -> str:
        """Send one user turn; return the agent's response line."""
        self.send({"user_input": user_input}, "before it read the turn")
        return self.answer()

    def send(self, line: Mapping[str, Any], when: str) -> None:
        """Write one JSON line to the agent's stdin (`when`: how an error says it failed)."""
        stdin = self._process.stdin
        assert stdin is not None  # a pipe
        data = json.dumps(line).encode() + b"\n"
        try:
            view = memoryview(data)
            while view:  # unbuffered: a write may be partial
                view = view[stdin.write(view) or 0 :]
        except (BrokenPipeError, OSError):
            raise self._died(when) from None

    def answer(self) -> str:
        """Read the agent's `{"response": ...}` line.

        Raises:
            AgentError: The agent died, wrote past a cap, or wrote something else.
        """
        raw = self._readline(min(MAX_LINE_BYTES, MAX_STDOUT_BYTES - self._read) + 1)
        self._read += len(raw)
        if not raw:
            raise self._died("without answering the turn")
        if self._read > MAX_STDOUT_BYTES:
            self.kill()
            raise AgentError(
                f"the agent process wrote over {MAX_STDOUT_BYTES} bytes to stdout in one case"
            )
        if len(raw) > MAX_LINE_BYTES:
            self.kill()
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

    def pending(self) -> bool:
        """Whether the agent wrote to stdout beyond its answers (or closed it)."""
        stdout = self._process.stdout
        assert stdout is not None  # a pipe
        if self._buffer:
            return True
        with contextlib.suppress(OSError, ValueError):
            return bool(select.select([stdout], [], [], 0)[0])
        return True

    def next_case(self) -> None:
        """Start counting stdout and stderr afresh: what follows is the next case's."""
        self._read = 0
        self._case_stderr = self._stderr.seek(0, os.SEEK_END)

    def hand_on_stderr(self) -> None:
        """Write what the agent wrote to stderr during the current case to this process's
        stderr, which is the case's captured output while a case runs."""
        self._stderr.seek(self._case_stderr)
        kept = self._stderr.read(STDERR_KEPT)
        self._case_stderr = self._stderr.tell()
        with contextlib.suppress(OSError):
            _write_all(2, kept)

    def close(self, *, hand_on: bool = True) -> None:
        """End the process: close stdin, give it a moment to exit, then end its whole group;
        then hand on the case's stderr (unless `hand_on` is off: no case is running)."""
        if self._closed:
            return
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):  # the process may be gone already
                self._process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)
        self.kill()
        self._closed = True
        if self._process.stdout is not None:
            self._process.stdout.close()
        with self._stderr:
            if hand_on:
                self.hand_on_stderr()

    def kill(self) -> None:
        """SIGTERM, then SIGKILL, to the agent's group: it and every process it started."""
        end_group(self._process.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=GRACE_S)

    def _readline(self, limit: int) -> bytes:
        """One line of stdout, newline included, or `limit` bytes of one; b"" at its end."""
        stdout = self._process.stdout
        assert stdout is not None  # a pipe
        searched = 0
        while True:
            end = self._buffer.find(b"\n", searched)
            if end != -1 and end < limit:
                return self._take(end + 1)
            if len(self._buffer) >= limit:
                return self._take(limit)
            searched = len(self._buffer)
            chunk = os.read(stdout.fileno(), _CHUNK)
            if not chunk:
                return self._take(len(self._buffer))
            self._buffer += chunk

    def _take(self, size: int) -> bytes:
        taken = bytes(self._buffer[:size])
        del self._buffer[:size]
        return taken

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
        """The end of the agent's stderr: its last non-empty line (the exception) whole, and
        the lines before it as `STDERR_TAIL` leaves room for, from a line's start."""
        size = self._stderr.seek(0, os.SEEK_END)
        start = max(self._case_stderr, size - 4 * STDERR_TAIL)
        self._stderr.seek(start)
        text = self._stderr.read().decode("utf-8", "replace")
        if start > self._case_stderr and "\n" in text:  # begun mid-line: from a whole line,
            text = text.partition("\n")[2]  # so no secret shows only its tail
        text = text.strip()
        if not text:
            return ""
        before, _, last = text.rpartition("\n")
        room = max(STDERR_TAIL - len(last), 0)
        context = before[-room:] if room else ""
        if len(context) < len(before):
            context = context.partition("\n")[2]  # from a whole line
        return f"; stderr: {context}\n{last}" if context else f"; stderr: {last}"


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

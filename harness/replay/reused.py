"""One agent process that serves case after case: the case-boundary protocol.

With `agent_reuse`, a worker starts `agent_command` once and plays every case it is handed
through the same process, one JSON object a line:

- `{"case": NAME, "workspace": PATH}` opens a case, before its first turn (`workspace` is null
  for a case without one; agents ignore keys they do not know: more may be added);
- `{"user_input": TEXT}` for each turn, answered by `{"response": TEXT}`, as without reuse;
- `{"end": NAME}` closes the case. Nothing is answered to it.

The process keeps one API key and one span token for its life; the case it plays now is
served under them, so it needs no per-case configuration. Per case it starts a fresh count of
its stdout against the cap, and what it writes to stderr during the case goes to that case's
captured output. A request that carries an earlier case's conversation errors the case
(`carryover`). A process that crashed, timed out, wrote past a cap, broke the protocol or
wrote more than its answers can no longer be trusted: it is ended with its whole group after
its case, and the next case gets a fresh one.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence

from harness.errors import AgentError
from harness.replay.carryover import Carryover, CaseGuard
from harness.replay.process import AgentProcess, end_group

__all__ = ["CaseAgent", "ReusedProcess"]


class ReusedProcess:
    """An agent command's process, started with its first case and kept while it is sound."""

    def __init__(self, argv: Sequence[str], cwd: str | None, memory_mb: int | None) -> None:
        self.api_key = f"harness-{secrets.token_hex(8)}"
        """The key every case of this process is served under."""
        self.span_token = secrets.token_hex(8)
        """The OTLP case token every case of this process is delivered under."""
        self._argv = tuple(argv)
        self._cwd = cwd
        self._memory_mb = memory_mb
        self._process: AgentProcess | None = None
        self._carryover = Carryover()
        self.broken = False
        """Whether the process can no longer be trusted with another case."""

    @property
    def pid(self) -> int | None:
        """The running process's id (None: not started yet)."""
        return self._process.pid if self._process is not None else None

    @property
    def sound(self) -> bool:
        """Whether the process may serve another case: not broken, alive, nothing unread."""
        process = self._process
        if process is None:
            return not self.broken
        return not self.broken and process.alive and not process.pending()

    def guard(self, name: str, inputs: Sequence[str], turn: Callable[[], int]) -> CaseGuard:
        """The check, for case `name`, of what its requests carry of earlier cases."""
        return self._carryover.guard(name, inputs, turn)

    def play(
        self, name: str, workspace: str | None, env: Mapping[str, str], guard: CaseGuard
    ) -> CaseAgent:
        """Open case `name` (starting the process with `env` if it has not started, or again
        if it died between cases).

        Raises:
            AgentError: The process cannot start, or died before it read the case line.
        """
        fresh = self._process is None
        if self._process is None:
            self._process = AgentProcess(
                self._argv, env, self._cwd, memory_mb=self._memory_mb, die_with_parent=True
            )
        process = self._process
        process.next_case()
        try:
            process.send({"case": name, "workspace": workspace}, "before it read the case line")
        except AgentError:
            if not fresh:  # it died after its last case ended: a fresh one takes this case
                process.close(hand_on=False)
                self._process = None
                return self.play(name, workspace, env, guard)
            self.broken = True
            process.hand_on_stderr()
            raise
        return CaseAgent(self, process, name, guard)

    def end(self, grace: float | None = None) -> None:
        """End the process and its whole group, between cases.

        Without `grace` it is asked to exit (stdin closed) first; with it, its group gets
        SIGTERM at once and SIGKILL after `grace` seconds.
        """
        self.broken = True
        process = self._process
        if process is None:
            return
        if grace is not None:
            end_group(process.pid, grace)
        process.close(hand_on=False)
        self._process = None


class CaseAgent:
    """The `Agent` for one case of a reused process."""

    def __init__(
        self, owner: ReusedProcess, process: AgentProcess, name: str, guard: CaseGuard
    ) -> None:
        self._owner = owner
        self._process = process
        self._name = name
        self._guard = guard

    def turn(self, user_input: str) -> str:
        """Send one user turn; return the agent's response line."""
        try:
            return self._process.turn(user_input)
        except BaseException:  # a timeout lands here too: the process is mid-turn
            self._owner.broken = True
            raise

    def close(self) -> None:
        """Close the case: `{"end": ...}` to a sound process, the end of one that is not.

        Raises:
            AgentError: The process wrote to stdout beyond its answers.
        """
        self._guard.close()
        process = self._process
        stray = not self._owner.broken and process.pending()
        if not self._owner.broken and not stray:
            try:
                process.send({"end": self._name}, "before it read the end line")
            except AgentError:
                self._owner.broken = True  # its answers are in: the next case gets a fresh one
        if self._owner.broken or stray:
            process.kill()
        process.hand_on_stderr()
        if stray:
            self._owner.broken = True
            raise AgentError(
                'the agent process wrote to stdout beyond its {"response": ...} lines; '
                "it was ended, and a fresh one serves the next case"
            )

"""The agent process of a worker: an `agent_command` agent, per case or reused across cases.

Without reuse every case starts the command afresh, told its endpoint, its key and its
workspace (`HARNESS_WORKSPACE`) in the environment. A case has a workspace when its fixture
seeds `setup.workspace_files` or checks `expects.workspace` (a temp folder for every case would
cost more than the rest of a reused agent's case). With `agent_reuse`, a supervised worker
keeps one process (`replay.reused`) for case after case: it is started with the first case,
spared when the worker ends a case's leftover processes, replaced after a case that left it
untrustworthy, and ended with its whole group when the worker stops, on SIGTERM too, so no
process outlives the run. Where cases do not run in supervised workers, reuse falls back to a
process per case.
"""

from __future__ import annotations

import os
import signal
from types import FrameType
from typing import TYPE_CHECKING

from harness.replay.process import AgentProcess, end_group
from harness.replay.reused import ReusedProcess

if TYPE_CHECKING:
    from harness.fixtures.format import Case
    from harness.pipeline.setup import Setup
    from harness.replay.agent import Agent
    from harness.replay.context import Endpoint
    from harness.replay.reused import ReusedProcess
    from harness.replay.workspace import Workspace

__all__ = ["END_GRACE_S", "close_pool", "command_agent", "end_on_sigterm", "spared"]

END_GRACE_S = 0.3
"""Seconds a reused process has between SIGTERM and SIGKILL when its worker is stopped."""

_current: ReusedProcess | None = None


def command_agent(setup: Setup, case: Case, endpoint: Endpoint, workspace: Workspace) -> Agent:
    """The agent for `case` of an `agent_command` setup: a new process, or the worker's own."""
    if setup.agent_reuse and setup.in_worker:
        return _reused_agent(setup, case, endpoint, workspace)
    key = endpoint.open().api_key
    env = {**_env(endpoint, key), "HARNESS_CASE": case.name}
    if workspace.created:  # made by `ready_workspace` for a case that needs one
        env["HARNESS_WORKSPACE"] = workspace.path
    return AgentProcess(setup.agent_command, env, setup.root, memory_mb=setup.memory_mb)


def _reused_agent(setup: Setup, case: Case, endpoint: Endpoint, workspace: Workspace) -> Agent:
    global _current
    if _current is not None and not _current.sound:
        _current.end()
        _current = None
    if _current is None:
        _current = ReusedProcess(setup.agent_command, setup.root, setup.memory_mb)
    inputs = [turn.user_input for turn in case.trace.turns]
    guard = _current.guard(case.name, inputs, endpoint.turn)
    endpoint.open(api_key=_current.api_key, span_token=_current.span_token, guard=guard)
    folder = workspace.path if workspace.created else None
    return _current.play(case.name, folder, _env(endpoint, _current.api_key), guard)


def _env(endpoint: Endpoint, key: str) -> dict[str, str]:
    """What an agent process is told of the endpoint: the same for every case it serves."""
    env = {
        "OPENAI_BASE_URL": endpoint.url,
        "OPENAI_API_KEY": key,
        "ANTHROPIC_BASE_URL": endpoint.anthropic_url,
        "ANTHROPIC_API_KEY": key,
    }
    otel = endpoint.otel
    if otel is not None:  # tool spans on: the agent's exporter points at the receiver
        env.update(otel.env)
    return env


def spared() -> tuple[int, ...]:
    """The worker's reused agent process, which outlives a case (none without reuse)."""
    pid = _current.pid if _current is not None else None
    return (pid,) if pid is not None else ()


def close_pool(grace: float | None = None) -> None:
    """End the worker's reused process, if any, with its group (`grace`: as `end` takes it)."""
    global _current
    current, _current = _current, None
    if current is not None:
        current.end(grace)


def end_on_sigterm() -> None:
    """In a worker: on SIGTERM, end the reused process's group, then exit as SIGTERM would."""

    def stop(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once is enough
        current = _current
        if current is not None and current.pid is not None:
            end_group(current.pid, END_GRACE_S)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)  # dies of it, as without a reused process

    signal.signal(signal.SIGTERM, stop)

"""Running cases: each in isolation, through the agent loop, into a graded `CaseReport`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from harness.agent import Agent, ReferenceAgent
from harness.case import Case
from harness.errors import CaseError
from harness.grader import evaluate_expects
from harness.observer import ObservedProvider, Observer, RecordingObserver
from harness.provider import ModelProvider
from harness.replay import ReplayProvider
from harness.report import CaseReport, SuiteReport
from harness.suite import Suite
from harness.tools import Tool, ToolRegistry, default_tools
from harness.workspace import Workspace

__all__ = ["AgentFactory", "reference_agent", "run_case", "run_suite"]

AgentFactory = Callable[[ModelProvider, ToolRegistry, Observer, Workspace], Agent]
"""Builds the agent for one case from its provider, tools, observer and workspace."""


def reference_agent(
    provider: ModelProvider, tools: ToolRegistry, observer: Observer, workspace: Workspace
) -> Agent:
    """The default `AgentFactory`: the reference loop (it needs no observer or workspace)."""
    return ReferenceAgent(provider, tools)


def run_case(
    case: Case,
    *,
    agent_factory: AgentFactory = reference_agent,
    tools: Callable[[], Iterable[Tool]] = default_tools,
) -> CaseReport:
    """Replay one case in isolation and grade it.

    The case gets its own provider, observer, tools, agent and temp workspace (made only if
    asked for, removed after). Any error in the loop or the replay errors this case alone.
    """
    started = time.perf_counter()
    observer = RecordingObserver()
    replay = ReplayProvider(case.trace)
    final_response, error = "", None
    with Workspace() as workspace:
        try:
            registry = ToolRegistry(tools(), observer)
            agent = agent_factory(ObservedProvider(replay, observer), registry, observer, workspace)
            for index, turn in enumerate(case.trace.turns):
                final_response = agent.turn(turn.user_input)
                replay.finish_turn(index)
        except CaseError as exc:
            error = str(exc)
        except Exception as exc:  # an agent bug errors its case, never the suite
            error = f"{type(exc).__name__}: {exc}"
    record = observer.record(final_response)
    grades = () if error else evaluate_expects(case.expects, record)
    return CaseReport(
        name=case.name,
        source=case.source,
        grades=grades,
        error=error,
        record=record,
        duration=time.perf_counter() - started,
    )


def run_suite(suite: Suite, *, mode: str = "replay") -> SuiteReport:
    """Run every case of `suite` in order; a case that errors never stops the others."""
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    cases = tuple(run_case(case) for case in suite.cases)
    return SuiteReport(
        suite=suite.name,
        directory=suite.directory,
        mode=mode,
        cases=cases,
        started_at=started_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        duration=time.perf_counter() - started,
    )

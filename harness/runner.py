"""Running cases: each in isolation, through the agent loop, into a graded `CaseReport`."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from harness.agent import Agent, ReferenceAgent
from harness.case import Case
from harness.driver import converse, within
from harness.errors import CaseError, ConfigError
from harness.grader import evaluate_expects
from harness.observer import ObservedProvider, Observer, RecordingObserver
from harness.plugin import ToolsFactory
from harness.provider import ModelProvider
from harness.replay import ReplayProvider
from harness.report import CaseReport, SuiteReport
from harness.suite import Suite
from harness.tools import ToolRegistry, default_tools
from harness.workspace import Workspace

__all__ = [
    "DEFAULT_CASE_TIMEOUT",
    "AgentFactory",
    "Setup",
    "reference_agent",
    "run_case",
    "run_suite",
]

AgentFactory = Callable[[ModelProvider, ToolRegistry, Observer, Workspace], Agent]
"""Builds the agent for one case from its provider, tools, observer and workspace."""

DEFAULT_CASE_TIMEOUT = 60.0
"""Seconds a case may run before it errors as hung."""


def reference_agent(
    provider: ModelProvider, tools: ToolRegistry, observer: Observer, workspace: Workspace
) -> Agent:
    """The default `AgentFactory`: the reference loop (it needs no observer or workspace)."""
    return ReferenceAgent(provider, tools)


@dataclass(frozen=True, kw_only=True)
class Setup:
    """How cases are run: which agent, which tools, how long a case may take."""

    agent_factory: AgentFactory = reference_agent
    """Builds each case's agent."""
    tools: ToolsFactory = default_tools
    """Makes each case's tools."""
    case_timeout: float | None = DEFAULT_CASE_TIMEOUT
    """Seconds before a case errors as hung (None: no limit)."""
    agent_name: str = "the agent factory"
    """How errors name the agent factory (its config path, say)."""

    @property
    def can_hang(self) -> bool:
        """Whether the agent or a tool is the project's own code, which could hang.

        The reference loop over the default tools is bounded, so it runs without a watchdog.
        """
        return self.agent_factory is not reference_agent or self.tools is not default_tools


DEFAULT_SETUP = Setup()


def run_case(case: Case, setup: Setup = DEFAULT_SETUP) -> CaseReport:
    """Replay one case in isolation and grade it.

    The case gets its own provider, observer, tools, agent and temp workspace (made only if
    asked for, removed after). Any error in the loop or the replay errors this case alone.

    Raises:
        ConfigError: The agent factory returned something that is not an agent.
    """
    started = time.perf_counter()
    observer = RecordingObserver()
    replay = ReplayProvider(case.trace)
    final_response, error, trace = "", None, None
    timeout = setup.case_timeout if setup.can_hang else None
    with Workspace() as workspace:
        try:
            registry = ToolRegistry(setup.tools(), observer)
            provider = ObservedProvider(replay, observer)
            agent = _build_agent(setup, provider, registry, observer, workspace)
            final_response = within(timeout, lambda: converse(agent, case.trace, replay))
        except ConfigError:
            raise
        except CaseError as exc:
            error = str(exc)
        except Exception as exc:  # an agent bug errors its case, never the suite
            error = f"{type(exc).__name__}: {exc}"
            trace = "".join(traceback.format_exception(exc))
    record = observer.record(final_response)
    grades = () if error else evaluate_expects(case.expects, record)
    return CaseReport(
        name=case.name,
        source=case.source,
        grades=grades,
        error=error,
        traceback=trace,
        record=record,
        duration=time.perf_counter() - started,
    )


def _build_agent(
    setup: Setup,
    provider: ModelProvider,
    registry: ToolRegistry,
    observer: Observer,
    workspace: Workspace,
) -> Agent:
    agent = setup.agent_factory(provider, registry, observer, workspace)
    if not callable(getattr(agent, "turn", None)):
        raise ConfigError(
            setup.agent_name,
            None,
            f"returned {type(agent).__name__}, which is not an agent (it needs turn(user_input))",
        )
    return agent


def run_suite(suite: Suite, *, mode: str = "replay", setup: Setup = DEFAULT_SETUP) -> SuiteReport:
    """Run every case of `suite` in order; a case that errors never stops the others."""
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    cases = tuple(run_case(case, setup) for case in suite.cases)
    return SuiteReport(
        suite=suite.name,
        directory=suite.directory,
        mode=mode,
        cases=cases,
        started_at=started_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        duration=time.perf_counter() - started,
    )

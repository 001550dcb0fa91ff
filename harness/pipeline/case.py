"""Running cases: each in isolation, through the agent loop, into a graded `CaseReport`."""

from __future__ import annotations

import time

from harness.errors import CaseError, ConfigError, ExtensionError
from harness.fixtures.format import Case
from harness.grading.graders import grade_case
from harness.grading.result import GradeContext, GradeResult
from harness.messages import ModelProvider, Observer
from harness.pipeline.setup import DEFAULT_SETUP, Setup
from harness.recording import FanOut, ObservedProvider, RecordingObserver
from harness.replay.agent import Agent
from harness.replay.context import CaseContext, Endpoint
from harness.replay.driver import converse, within
from harness.replay.provider import ReplayProvider
from harness.replay.tools import ToolRegistry
from harness.replay.workspace import Workspace
from harness.reports.model import CaseReport
from harness.reports.redact import published

__all__ = ["run_case"]


def run_case(case: Case, setup: Setup = DEFAULT_SETUP) -> CaseReport:
    """Replay one case in isolation and grade it.

    The case gets its own provider, observer, tools, agent and temp workspace (made only if
    asked for, removed after). Any error in the loop or the replay errors this case alone.

    Raises:
        ConfigError: The agent factory returned something that is not an agent.
    """
    started = time.perf_counter()
    recorder = RecordingObserver()
    observer: Observer = FanOut(recorder, setup.observers) if setup.observers else recorder
    replay = ReplayProvider(case.trace)
    provider = ObservedProvider(replay, observer)
    with Workspace() as workspace:
        grace = setup.tool_spans_grace_s if setup.tool_spans else None
        endpoint = Endpoint(case.name, provider, observer, tool_spans_grace_s=grace)
        try:
            final_response, error, trace = _play(case, setup, provider, replay, workspace, endpoint)
        finally:
            wired = endpoint.opened
            problems, requests = endpoint.close()
        if endpoint.span_join is not None:  # tool spans: expectations the spans cannot grade
            from harness.replay.spans import uncaptured

            problems.extend(uncaptured(case.expects, endpoint.span_join))
        error = _wire_error(problems, error)
        record = recorder.record(final_response, requests, wire=wired)
        if isinstance(observer, FanOut) and observer.failure and error is None:
            error = observer.failure
        grades: tuple[GradeResult, ...] = ()
        if error is None:
            context = GradeContext(
                workspace=workspace.path if workspace.created else None,
                duration_s=time.perf_counter() - started,
            )
            try:
                grades = grade_case(case, record, context, setup.graders)
            except ExtensionError as exc:
                grades, error = (), str(exc)
                trace = _formatted(exc.__cause__ or exc)
    return published(
        CaseReport(
            name=case.name,
            source=case.source,
            grades=grades,
            error=error,
            traceback=trace,
            record=record,
            duration=time.perf_counter() - started,
        )
    )


Played = tuple[str, str | None, str | None]
"""What a case's agent said last, or why it failed and the traceback of an unexpected error."""


def _play(
    case: Case,
    setup: Setup,
    provider: ModelProvider,
    replay: ReplayProvider,
    workspace: Workspace,
    endpoint: Endpoint,
) -> Played:
    """Build the case's agent, play it the case's turns and close it, whatever happens."""
    timeout = setup.case_timeout if setup.can_hang else None
    try:
        agent = _build_agent(setup, case, provider, workspace, endpoint)
        try:
            return within(timeout, lambda: converse(agent, case.trace, replay)), None, None
        finally:
            close = getattr(agent, "close", None)
            if close is not None:
                close()
    except ConfigError:
        raise
    except Exception as exc:  # an agent bug errors its case, never the suite
        return "", *_failure(exc)


def _failure(exc: Exception) -> tuple[str, str | None]:
    """A case's error for `exc`, with a traceback unless the harness itself raised it."""
    if isinstance(exc, CaseError):
        return str(exc), None
    return f"{type(exc).__name__}: {exc}", _formatted(exc)


def _formatted(exc: BaseException) -> str:
    import traceback  # only a crashed case needs it

    return "".join(traceback.format_exception(exc))


def _wire_error(problems: list[str], error: str | None) -> str | None:
    """The case's error: what went wrong on the wire first, since the agent's failure follows."""
    if not problems:
        return error
    if error is None or error in problems:
        return "; ".join(problems)
    return f"{'; '.join(problems)} (then: {error})"


def _build_agent(
    setup: Setup, case: Case, provider: ModelProvider, workspace: Workspace, endpoint: Endpoint
) -> Agent:
    if setup.agent_command:
        from harness.replay.process import AgentProcess

        env = {
            "OPENAI_BASE_URL": endpoint.url,
            "OPENAI_API_KEY": endpoint.open().api_key,
            "HARNESS_CASE": case.name,
        }
        otel = endpoint.otel
        if otel is not None:  # tool spans on: the agent's exporter points at the receiver
            env.update(otel.env)
        return AgentProcess(setup.agent_command, env, setup.root)
    context = CaseContext(
        case_name=case.name,
        provider=provider,
        tools=ToolRegistry(setup.tools(), endpoint.observer),
        workspace=workspace,
        endpoint=endpoint,
    )
    agent = setup.agent_factory(context)
    if not callable(getattr(agent, "turn", None)):
        raise ConfigError(
            setup.agent_name,
            None,
            f"returned {type(agent).__name__}, which is not an agent (it needs turn(user_input))",
        )
    return agent

"""Running cases: each in isolation, through the agent loop, into a graded `CaseReport`."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import TYPE_CHECKING

from harness.errors import CaseError, ConfigError, ExtensionError
from harness.fixtures.format import Case
from harness.grading.expectations import evaluate_expects
from harness.grading.extensions import grade_with
from harness.grading.result import GradeResult
from harness.messages import ModelProvider, Observer
from harness.pipeline.setup import DEFAULT_SETUP, Setup
from harness.recording import FanOut, ObservedProvider, RecordingObserver
from harness.replay.agent import Agent
from harness.replay.driver import converse, within
from harness.replay.provider import ReplayProvider
from harness.replay.tools import ToolRegistry
from harness.replay.workspace import Workspace
from harness.reports.model import CaseReport
from harness.reports.redact import published

if TYPE_CHECKING:
    from harness.replay.wire import WireSession

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
    session: WireSession | None = None
    with Workspace() as workspace:
        provider = ObservedProvider(replay, observer)
        play = functools.partial(_play, case, setup, provider, replay, observer, workspace)
        if setup.wired:
            final_response, error, trace, session = _play_wired(case, provider, observer, play)
        else:
            final_response, error, trace = play(None)
    requests: tuple[object, ...] = ()
    if session is not None:
        requests = tuple(session.requests)
        error = _wire_error(session.finish(), error)
    record = recorder.record(final_response, requests)
    if isinstance(observer, FanOut) and observer.failure and error is None:
        error = observer.failure
    grades: tuple[GradeResult, ...] = ()
    if error is None:
        grades = evaluate_expects(case.expects, record)
        try:
            grades += grade_with(setup.graders, record)
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
    observer: Observer,
    workspace: Workspace,
    session: WireSession | None,
) -> Played:
    """Build the case's agent, play it the case's turns and close it, whatever happens."""
    timeout = setup.case_timeout if setup.can_hang else None
    try:
        agent = _build_agent(setup, case, provider, observer, workspace, session)
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


def _play_wired(
    case: Case,
    provider: ModelProvider,
    observer: Observer,
    play: Callable[[WireSession | None], Played],
) -> tuple[str, str | None, str | None, WireSession | None]:
    """`play` with the case served on the replay endpoint while the agent runs."""
    from harness.replay.wire import shared_server

    with ExitStack() as stack:
        try:
            session = stack.enter_context(shared_server().session(case.name, provider, observer))
        except Exception as exc:
            return "", *_failure(exc), None
        return (*play(session), session)


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
    setup: Setup,
    case: Case,
    provider: ModelProvider,
    observer: Observer,
    workspace: Workspace,
    session: WireSession | None,
) -> Agent:
    if session is not None:
        from harness.replay.wire import shared_server

        base_url = shared_server().url
    if session is not None and setup.agent_command:
        from harness.replay.process import AgentProcess

        env = {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": session.api_key}
        return AgentProcess(setup.agent_command, {**env, "HARNESS_CASE": case.name}, setup.root)
    if session is not None:
        # Over the wire the endpoint records the calls; the tools stay usable, unrecorded here.
        registry = ToolRegistry(setup.tools(), RecordingObserver())
        agent = setup.agent_factory(
            provider,
            registry,
            observer,
            workspace,
            base_url=base_url,  # type: ignore[call-arg]
            api_key=session.api_key,
        )
    else:
        registry = ToolRegistry(setup.tools(), observer)
        agent = setup.agent_factory(provider, registry, observer, workspace)
    if not callable(getattr(agent, "turn", None)):
        raise ConfigError(
            setup.agent_name,
            None,
            f"returned {type(agent).__name__}, which is not an agent (it needs turn(user_input))",
        )
    return agent

"""Running cases: each in isolation, through the agent loop, into a graded `CaseReport`."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from harness.errors import AgentError, CaseError, CaseTimeout, ConfigError, ExtensionError
from harness.fixtures.format import Case
from harness.fixtures.identity import case_hash, case_id
from harness.grading.evidence import wire_refusals
from harness.grading.graders import grade_case
from harness.grading.result import GradeContext, GradeResult
from harness.messages import ModelProvider, Observer
from harness.pipeline.capture import Capture, Captured
from harness.pipeline.seeding import ready_workspace
from harness.pipeline.setup import DEFAULT_SETUP, Setup
from harness.pipeline.watchdog import on_timer
from harness.recording import FanOut, ObservedProvider, RecordingObserver, RunRecord
from harness.replay.agent import Agent
from harness.replay.context import CaseContext, Endpoint
from harness.replay.driver import converse, escaped, within
from harness.replay.provider import ReplayProvider
from harness.replay.spans import uncaptured
from harness.replay.tools import ToolRegistry
from harness.replay.workspace import Workspace
from harness.reports.model import CaseReport
from harness.reports.redact import published, redact

__all__ = ["run_case"]


def run_case(case: Case, setup: Setup = DEFAULT_SETUP) -> CaseReport:
    """Replay one case in isolation and grade it.

    The case gets its own provider, observer, tools, agent and temp workspace (made only if
    asked for, removed after). Any error in the loop or the replay errors this case alone.

    Raises:
        ConfigError: The agent factory returned something that is not an agent.
    """
    identity, digest = case_id(case), case_hash(case.trace)
    if case.trace.skip is not None:  # not run, so never passed
        return CaseReport(
            name=case.name,
            source=case.source,
            skipped=case.trace.skip,
            case_id=identity,
            case_hash=digest,
        )
    started = time.perf_counter()
    recorder = RecordingObserver()
    observer: Observer = FanOut(recorder, setup.observers) if setup.observers else recorder
    replay = ReplayProvider(case.trace)
    provider = ObservedProvider(replay, observer)
    # Only the project's own code can print: the reference loop and its tools never do.
    capture = None
    if setup.runs_project_code:
        capture = Capture(setup.output_limit, live=not setup.capture)
    with Workspace() as workspace:
        grace = setup.tool_spans_grace_s if setup.tool_spans else None
        endpoint = Endpoint(
            case.name, provider, observer, lambda: replay.turn, tool_spans_grace_s=grace
        )
        try:
            final_response, error, traceback_text = ready_workspace(case, workspace)
            if error is None:
                with capture or contextlib.nullcontext():
                    played = _play(case, setup, provider, replay, workspace, endpoint)
                final_response, error, traceback_text = played
        finally:
            wire = endpoint.close()
        requests: tuple[Any, ...] = ()
        if wire is not None:
            problems = list(wire.problems)
            if endpoint.span_join is not None:  # tool spans: what the spans cannot grade
                problems.extend(uncaptured(case.expects, endpoint.span_join))
            error = _wire_error(problems, error)
            error = error or _refused(case, wire.protocols, setup)
            requests = wire.requests
        record = recorder.record(final_response, requests, wire=wire is not None)
        if isinstance(observer, FanOut) and observer.failure and error is None:
            error = observer.failure
        grades: tuple[GradeResult, ...] = ()
        if error is None:
            context = GradeContext(
                workspace=workspace.path if workspace.created else None,
                duration_s=time.perf_counter() - started,
            )
            try:
                grades = _graded(case, record, context, setup)
            except CaseTimeout as exc:
                grades, error = (), str(exc)
            except ExtensionError as exc:
                grades, error = (), str(exc)
                traceback_text = _formatted(exc.__cause__ or exc)
    output = capture.result if capture is not None else Captured()
    if error is None:  # still graded: the grades show, the case errors for the flood
        error = output.overflow_error(setup.output_limit)
    return published(
        CaseReport(
            name=case.name,
            source=case.source,
            grades=grades,
            error=error,
            traceback=traceback_text,
            record=record,
            duration=time.perf_counter() - started,
            stdout=redact(output.stdout),
            stderr=redact(output.stderr),
            case_id=identity,
            case_hash=digest,
        )
    )


def _graded(
    case: Case, record: RunRecord, context: GradeContext, setup: Setup
) -> tuple[GradeResult, ...]:
    """The case's checks; in a worker, the project's graders get the case's timeout.

    Raises:
        CaseTimeout: A project grader did not return in time.
        ExtensionError: A project grader failed or returned something that is not grades.
    """
    if not (setup.in_worker and setup.graders):
        return grade_case(case, record, context, setup.graders)
    return on_timer(
        setup.case_timeout,
        lambda: grade_case(case, record, context, setup.graders),
        who="the project's graders",
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
    """Build the case's agent, play it the case's turns and close it, whatever happens.

    The project's own code (its factory, agent and tools) runs on a watchdog thread, so what
    it raises, `SystemExit` and `KeyboardInterrupt` included, errors its case alone, while a
    signal to the harness still reaches the main thread and stops the run.
    """
    timeout = setup.case_timeout if setup.runs_project_code else None
    built: list[Agent] = []

    def play() -> str:
        built.append(_build_agent(setup, case, provider, workspace, endpoint))
        return converse(built[0], case.trace, replay)

    try:
        try:
            if setup.in_worker:  # SIGINT is ignored there: nothing it raises is a signal
                return on_timer(timeout, play), None, None
            return within(timeout, play, threaded=setup.runs_project_code), None, None
        finally:
            close = getattr(built[0], "close", None) if built else None
            if close is not None:
                close()
    except ConfigError:
        raise
    except Exception as exc:  # an agent bug errors its case, never the suite
        return "", *_failure(exc)
    except (SystemExit, GeneratorExit) as exc:  # from close(), on this thread
        return "", escaped(exc), _formatted(exc)
    except BaseException as exc:
        if not setup.in_worker:
            raise  # a signal to the harness: the run stops
        return "", escaped(exc), _formatted(exc)


def _failure(exc: Exception) -> tuple[str, str | None]:
    """A case's error for `exc`, with a traceback unless the harness itself raised it."""
    cause = exc.__cause__
    if isinstance(exc, AgentError) and cause is not None and not isinstance(cause, Exception):
        return str(exc), _formatted(cause)  # sys.exit() and the like: show where from
    if isinstance(exc, CaseError):
        return str(exc), None
    if isinstance(exc, MemoryError):
        reason = "the agent ran out of memory (agent_memory_mb, or the machine's)"
        return reason, _formatted(exc)
    return f"{type(exc).__name__}: {exc}", _formatted(exc)


def _formatted(exc: BaseException) -> str:
    import traceback  # deferred: every run loads this module, only a crashed case needs it

    return "".join(traceback.format_exception(exc))


def _wire_error(problems: list[str], error: str | None) -> str | None:
    """The case's error: what went wrong on the wire first, since the agent's failure follows."""
    if not problems:
        return error
    if error is None or error in problems:
        return "; ".join(problems)
    return f"{'; '.join(problems)} (then: {error})"


def _refused(case: Case, protocols: frozenset[str], setup: Setup) -> str | None:
    """Why the case cannot be graded over the wire (an expectation it cannot observe)."""
    mode = "agent_command" if setup.agent_command else "the agent used its context's base_url"
    refused = wire_refusals(case.expects, protocols, mode, tool_spans=setup.tool_spans)
    return "; ".join(reason for _, reason in refused) or None


def _build_agent(
    setup: Setup, case: Case, provider: ModelProvider, workspace: Workspace, endpoint: Endpoint
) -> Agent:
    if setup.agent_command:
        # Deferred: the subprocess agents' imports would slow the start of in-process runs.
        from harness.pipeline.agent_pool import command_agent

        return command_agent(setup, case, endpoint, workspace)
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

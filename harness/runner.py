"""Running cases: each in isolation, through the agent loop, into a graded `CaseReport`."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.agent import Agent, ReferenceAgent
from harness.case import Case
from harness.driver import converse, within
from harness.errors import CaseError, ConfigError
from harness.extension import ExtensionError, FanOut, grade_with
from harness.gcpause import gc_paused
from harness.grader import Grader, GradeResult, evaluate_expects
from harness.interrupt import signal_name
from harness.observer import ObservedProvider, Observer, RecordingObserver
from harness.provider import ModelProvider
from harness.redact import published
from harness.replay import ReplayProvider
from harness.report import CaseReport, SuiteReport
from harness.suite import PARALLEL_MIN, Suite
from harness.tools import ToolRegistry, default_tools
from harness.workspace import Workspace

if TYPE_CHECKING:
    from harness.plugin import ToolsFactory
    from harness.wire import WireSession

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
    observers: tuple[Observer, ...] = ()
    """The project's own observers, notified of every event after the recorder."""
    agent_command: tuple[str, ...] = ()
    """An agent in any language: the command run once per case (JSON lines on stdin/stdout)."""
    wire: bool = False
    """Whether the agent factory takes `base_url` and `api_key` (it talks to the endpoint)."""
    root: str | None = None
    """The project folder, where the agent command runs."""
    graders: tuple[Grader, ...] = ()
    """The project's own graders, run after the expectations."""

    @property
    def can_hang(self) -> bool:
        """Whether the agent or a tool is the project's own code, which could hang.

        The reference loop over the default tools is bounded, so it runs without a watchdog.
        """
        custom = self.agent_factory is not reference_agent or self.tools is not default_tools
        return custom or self.wired

    @property
    def wired(self) -> bool:
        """Whether the agent is replayed over the wire (the OpenAI-compatible endpoint)."""
        return bool(self.agent_command) or self.wire


DEFAULT_SETUP = Setup()


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
    from harness.wire import shared_server  # only wire runs pay for the server

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
        from harness.wire import shared_server

        base_url = shared_server().url
    if session is not None and setup.agent_command:
        from harness.agent_process import AgentProcess

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


def run_suite(
    suite: Suite, *, mode: str = "replay", setup: Setup = DEFAULT_SETUP, jobs: int = 1
) -> SuiteReport:
    """Run every case of `suite` in order; a case that errors never stops the others.

    With `jobs` > 1 the cases run in that many worker processes; the report is the same. The
    built-in loop replays a suite of fewer than `PARALLEL_MIN` cases here even so: workers would
    cost more than they save.
    """
    started_at = time.time()
    started = time.perf_counter()
    finished: list[CaseReport] = []
    interrupted = None
    with gc_paused():
        if _in_workers(suite, setup, jobs):
            from harness.pool import run_in_workers

            reports = run_in_workers(suite.cases, setup, min(jobs, len(suite.cases)))
        else:
            reports = (run_case(case, setup) for case in suite.cases)
        try:
            finished.extend(reports)
        except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: keep what finished
            interrupted = signal_name(exc)
    cases = tuple(finished)
    return SuiteReport(
        suite=suite.name,
        directory=suite.directory,
        mode=mode,
        cases=cases,
        started_at=_iso_utc(started_at),
        duration=time.perf_counter() - started,
        shard=suite.shard,
        suite_total=suite.total,
        interrupted=interrupted,
    )


def _in_workers(suite: Suite, setup: Setup, jobs: int) -> bool:
    """Whether to replay in worker processes: asked for, and worth starting them."""
    if jobs < 2 or len(suite.cases) < 2:
        return False
    return setup.can_hang or len(suite.cases) >= PARALLEL_MIN


def _iso_utc(seconds: float) -> str:
    """`2026-01-02T03:04:05.678Z`, without importing datetime for it."""
    millis = int(seconds * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"

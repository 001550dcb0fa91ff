"""Driving an agent through a case's turns: sync or async, under a per-case timeout."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from harness.errors import AgentError, CaseTimeout
from harness.messages import plain_str

if TYPE_CHECKING:
    from harness.fixtures.format import LlmTrace
    from harness.replay.agent import Agent
    from harness.replay.provider import ReplayProvider

__all__ = ["converse", "escaped", "within"]

T = TypeVar("T")


def converse(agent: Agent, trace: LlmTrace, replay: ReplayProvider) -> str:
    """Play every user turn to the agent; return the last turn's final text.

    An async agent's turns all run on one event loop, made for this case and closed after it.

    Raises:
        AgentError: A turn returned something other than a string (a `str` subclass is
            taken as its plain `str` value).
        ReplayError: A turn asked for more, or fewer, replies than scripted.
    """
    final = ""
    loop: Any = None
    try:
        for index, turn in enumerate(trace.turns):
            result: object = agent.turn(turn.user_input)
            if not isinstance(result, str) and isinstance(result, Awaitable):
                if loop is None:
                    # Deferred: only async agents need asyncio, whose import would slow
                    # the start of every run.
                    import asyncio

                    loop = asyncio.Runner()
                result = loop.run(_wait(result))
            if not isinstance(result, str):
                raise AgentError(f"agent.turn() returned {type(result).__name__}, expected str")
            # A str subclass (LangChain's TextAccessor, say) is taken as its plain value, so
            # no override of its own can change how it is graded or written.
            final = plain_str(result)
            replay.finish_turn(index)
    finally:
        if loop is not None:
            loop.close()
    return final


async def _wait(awaitable: Awaitable[T]) -> T:
    return await awaitable


def within(timeout: float | None, work: Callable[[], T], *, threaded: bool = False) -> T:
    """Run `work`, giving up after `timeout` seconds (None: no limit).

    With a timeout, or `threaded`, the work runs on a daemon thread; on timeout it is abandoned
    there: everything it touches belongs to its own case, so the suite goes on. What the work
    raises that is not an `Exception` (`SystemExit`, `KeyboardInterrupt`, `GeneratorExit`, a
    custom `BaseException`) came from the agent's own code, not from a signal to the harness
    (signals are handled on the main thread, which only waits here): it errors the case as an
    `AgentError`, with the original as its cause.

    Raises:
        CaseTimeout: The work did not finish in time.
        AgentError: The work raised a `BaseException` that is not an `Exception`.
    """
    if timeout is None and not threaded:
        return work()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the waiting thread, re-raised there
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="harness-case", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise CaseTimeout(
            f"case timed out after {timeout:g}s (case_timeout); the agent never finished"
        )
    if "error" in outcome:
        error = outcome["error"]
        if not isinstance(error, Exception):
            raise AgentError(escaped(error)) from error
        raise error
    value: T = outcome["value"]
    return value


def escaped(error: BaseException) -> str:
    """What an agent did by raising a `BaseException` that is not an `Exception`."""
    if isinstance(error, SystemExit):
        code = "" if error.code is None else repr(error.code)
        return f"the agent called sys.exit({code})"
    if isinstance(error, KeyboardInterrupt):
        return "the agent raised KeyboardInterrupt itself (no signal reached the harness)"
    detail = str(error)
    return f"the agent raised {type(error).__name__}" + (f": {detail}" if detail else "")

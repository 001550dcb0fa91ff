"""Driving agents: sync and async turns, one loop per case, and the watchdog."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec
import pytest

from harness.errors import AgentError, CaseTimeout
from harness.fixtures.format import LlmTrace
from harness.replay.driver import converse, within
from harness.replay.provider import ReplayProvider
from tests.builders import echo_trace, text_step


def trace(turns: int) -> LlmTrace:
    spec = [{"user_input": f"t{i}", "steps": [text_step(f"r{i}")]} for i in range(turns)]
    return msgspec.convert(echo_trace(turns=spec), LlmTrace)


class AsyncAgent:
    def __init__(self, replay: ReplayProvider) -> None:
        self.replay = replay
        self.loops: list[asyncio.AbstractEventLoop] = []

    async def turn(self, user_input: str) -> str:
        self.loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return self.replay.complete([], []).text


def test_async_turns_share_one_event_loop_per_case() -> None:
    """All turns of a case run on the same loop, which is closed afterwards."""
    case = trace(3)
    replay = ReplayProvider(case)
    agent = AsyncAgent(replay)
    assert converse(agent, case, replay) == "r2"
    assert len(set(map(id, agent.loops))) == 1
    assert agent.loops[0].is_closed()


def test_non_string_result_is_an_agent_error() -> None:
    """A turn must produce text."""

    class Bad:
        def turn(self, user_input: str) -> object:
            return None

    case = trace(1)
    with pytest.raises(AgentError, match=r"agent\.turn\(\) returned NoneType, expected str"):
        converse(Bad(), case, ReplayProvider(case))  # type: ignore[arg-type]


class Accessor(str):
    """A str subclass with overrides that would forge a pass (LangChain's TextAccessor is one)."""

    def __contains__(self, needle: object) -> bool:
        return True

    def __str__(self) -> str:
        return "forged"


def test_a_str_subclass_is_taken_as_its_plain_value() -> None:
    """Its own `__str__` or `__contains__` cannot change what is graded."""

    class Subclassing:
        def __init__(self, replay: ReplayProvider) -> None:
            self.replay = replay

        def turn(self, user_input: str) -> str:
            return Accessor(f"plain {self.replay.complete([], []).text}")

    case = trace(1)
    replay = ReplayProvider(case)
    final = converse(Subclassing(replay), case, replay)
    assert (type(final), final) == (str, "plain r0")
    assert "nope" not in final


def test_within_returns_raises_and_times_out() -> None:
    """The watchdog passes results and errors through and stops waiting at the limit."""
    assert within(None, lambda: 1) == 1
    assert within(5, lambda: 2) == 2
    with pytest.raises(ZeroDivisionError):
        within(5, lambda: 1 // 0)
    started = time.monotonic()
    with pytest.raises(CaseTimeout, match=r"case timed out after 0\.2s"):
        within(0.2, lambda: time.sleep(10))
    assert time.monotonic() - started < 5


class _Custom(BaseException):
    pass


def _exit(code: object) -> str:
    raise SystemExit(code)


def _raise(error: BaseException) -> str:
    raise error


@pytest.mark.parametrize(
    ("work", "message"),
    [
        (lambda: _exit(3), "the agent called sys.exit(3)"),
        (lambda: _exit(None), "the agent called sys.exit()"),
        (lambda: _exit("bye"), "the agent called sys.exit('bye')"),
        (lambda: _raise(KeyboardInterrupt()), "the agent raised KeyboardInterrupt itself"),
        (lambda: _raise(GeneratorExit()), "the agent raised GeneratorExit"),
        (lambda: _raise(_Custom("mine")), "the agent raised _Custom: mine"),
    ],
    ids=["exit3", "exit", "exit-text", "keyboard", "generator-exit", "custom"],
)
@pytest.mark.parametrize("timeout", [None, 5.0])
def test_what_is_not_an_exception_errors_the_case(
    work: Any, message: str, timeout: float | None
) -> None:
    """On the watchdog thread, sys.exit and other BaseExceptions become an AgentError."""
    with pytest.raises(AgentError) as caught:
        within(timeout, work, threaded=True)
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value.__cause__, BaseException)

"""One case's session: how calls without results are told apart from dropped ones, and the
order calls are recorded in."""

from __future__ import annotations

import time
from typing import Any

import msgspec

from harness.fixtures.format import Case, LlmTrace
from harness.pipeline.case import run_case
from harness.pipeline.setup import Setup
from harness.recording import ObservedProvider, RecordingObserver
from harness.replay.chat_completions import CHAT_COMPLETIONS
from harness.replay.provider import ReplayProvider
from harness.replay.session import ScriptedReplies, WireSession
from tests.builders import TWO_ECHOES, assert_timed, calls_step, echo_trace, text_step
from tests.wire_agents import factory

PATH = "/v1/chat/completions"


def session_of(steps: list[Any]) -> tuple[WireSession, RecordingObserver, ReplayProvider]:
    observer = RecordingObserver()
    replay = ReplayProvider(
        msgspec.convert(echo_trace(turns=[{"user_input": "u", "steps": steps}]), LlmTrace)
    )
    source = ScriptedReplies(ObservedProvider(replay, observer))
    return WireSession("s", source, observer, lambda: replay.turn), observer, replay


def tool(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def echoed(call_id: str) -> dict[str, Any]:
    call = {"id": call_id, "type": "function", "function": {"name": "echo", "arguments": "{}"}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def test_a_call_the_turn_ends_on_is_a_call_without_result() -> None:
    """The last reply's call, never answered, is recorded with no result and is no error."""
    session, observer, _ = session_of([calls_step(("echo", {"message": "a"}))])
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": []})
    assert session.close().problems == ()
    (call,) = observer.record("", wire=True).tool_calls
    assert (call.name, call.result, call.success) == ("echo", None, False)


def test_an_earlier_call_echoed_without_result_is_an_error() -> None:
    """The loop went on with the call in its history but without its result."""
    session, _, _ = session_of([calls_step(("echo", {})), text_step("done")])
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": []})
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": [echoed("call_1")]})
    (problem,) = session.close().problems
    assert 'scripted tool call "call_1" (echo) never got a result' in problem


def test_results_sent_as_plain_text_are_calls_without_result() -> None:
    """A later request that never mentions the call (smolagents' plain-text observations)."""
    session, observer, _ = session_of([calls_step(("echo", {})), text_step("done")])
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": []})
    text = {"role": "user", "content": "Observation: hello"}
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": [text]})
    assert session.close().problems == ()
    (call,) = observer.record("", wire=True).tool_calls
    assert call.result is None


def test_calls_are_recorded_once_in_the_order_served() -> None:
    """The history comes again with every request; each call is recorded once, in order."""
    steps = [calls_step(("echo", {"n": 1}), ("echo", {"n": 2})), text_step("done")]
    session, observer, _ = session_of(steps)
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": []})
    history = [tool("call_2", "two"), tool("call_1", "one")]
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": history})
    session.close()
    results = [call.result for call in observer.record("", wire=True).tool_calls]
    assert results == ["one", "two"]


def test_a_result_under_an_unknown_id_is_an_error() -> None:
    """It is recorded as a failed call to an unknown id and errors the case."""
    session, observer, _ = session_of([calls_step(("echo", {})), text_step("done")])
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": []})
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": [tool("call_9", "x"), tool("call_1", "y")]})
    problems = session.close().problems
    assert any('result for id "call_9", which no scripted call has' in p for p in problems)
    names = [call.name for call in observer.record("", wire=True).tool_calls]
    assert names == ["echo", "<unknown tool call id call_9>"]


def test_a_wire_call_lasts_from_its_reply_to_the_request_with_its_result() -> None:
    """Calls of one reply share their timing, which brackets the agent's time between them."""
    steps = [calls_step(("echo", {"n": 1}), ("echo", {"n": 2})), text_step("done")]
    session, observer, _ = session_of(steps)
    origin = time.perf_counter()  # the observer was made before: its case started earlier
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": []})
    between = time.perf_counter()
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": [tool("call_1", "1"), tool("call_2", "2")]})
    session.close()
    first, second = observer.record("", wire=True).tool_calls
    assert (first.started_s, first.duration_s) == (second.started_s, second.duration_s)
    assert first.started_s is not None
    assert first.duration_s is not None
    assert first.started_s + first.duration_s >= between - origin


def test_a_wire_call_without_result_has_a_start_and_no_duration() -> None:
    """A call the turn ended on has no measured end; a result under an unknown id, no start."""
    session, observer, _ = session_of([calls_step(("echo", {})), text_step("done")])
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": []})
    session.serve(CHAT_COMPLETIONS, PATH, {"messages": [tool("call_9", "x")]})
    session.close()
    unanswered, unknown = observer.record("", wire=True).tool_calls
    assert unanswered.result is None
    assert unanswered.started_s is not None
    assert unanswered.duration_s is None
    assert (unknown.started_s, unknown.duration_s) == (None, None)


def test_a_wire_agent_records_each_call_timed_within_its_case() -> None:
    """An agent over the wire: known, non-negative timings within the case, in call order."""
    trace = msgspec.convert(echo_trace(turns=TWO_ECHOES, expects={"exact_tool_calls": 2}), LlmTrace)
    report = run_case(Case(source="two.json", trace=trace), Setup(agent_factory=factory))
    assert report.error is None
    assert [call.observed for call in report.record.tool_calls] == ["wire", "wire"]
    assert_timed(report.record.tool_calls, report.duration)

"""One case's session: how calls without results are told apart from dropped ones, and the
order calls are recorded in."""

from __future__ import annotations

from typing import Any

import msgspec

from harness.fixtures.format import LlmTrace
from harness.recording import ObservedProvider, RecordingObserver
from harness.replay.chat_completions import CHAT_COMPLETIONS
from harness.replay.provider import ReplayProvider
from harness.replay.session import ScriptedReplies, WireSession
from tests.builders import calls_step, echo_trace, text_step

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

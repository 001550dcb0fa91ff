"""The reference agent loop."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from harness.errors import AgentError
from harness.messages import Message, ModelReply, ToolCall, ToolSpec
from harness.recording import RecordingObserver
from harness.replay.agent import MAX_TOOL_ITERATIONS, ReferenceAgent
from harness.replay.tools import EchoTool, ToolRegistry


class Scripted:
    """A provider that returns canned replies and keeps what it was sent."""

    def __init__(self, *replies: ModelReply) -> None:
        self.replies = list(replies)
        self.seen: list[tuple[Message, ...]] = []

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        self.seen.append(tuple(messages))
        return self.replies.pop(0)


def echo(message: Any, call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name="echo", arguments={"message": message})


def agent(*replies: ModelReply) -> tuple[ReferenceAgent, Scripted, RecordingObserver]:
    provider = Scripted(*replies)
    observer = RecordingObserver()
    return ReferenceAgent(provider, ToolRegistry([EchoTool()], observer)), provider, observer


def test_text_reply_ends_the_turn() -> None:
    """A reply with text and no tool calls is the turn's answer."""
    loop, _, observer = agent(ModelReply(text="hi"))
    assert loop.turn("hello") == "hi"
    assert observer.record("").tool_calls == ()


def test_tool_results_go_back_into_the_history() -> None:
    """Calls run in order and each output is a tool message answering its call id."""
    loop, provider, _ = agent(
        ModelReply(tool_calls=(echo("a", "c1"), echo("b", "c2"))), ModelReply(text="done")
    )
    assert loop.turn("go") == "done"
    second_request = provider.seen[1]
    tool_messages = [m for m in second_request if m.role == "tool"]
    assert [(m.tool_call_id, m.content) for m in tool_messages] == [("c1", "a"), ("c2", "b")]


def test_history_spans_turns() -> None:
    """The second turn's request carries the first turn's conversation."""
    loop, provider, _ = agent(ModelReply(text="one"), ModelReply(text="two"))
    loop.turn("first")
    loop.turn("second")
    assert [(m.role, m.content) for m in provider.seen[1]] == [
        ("user", "first"),
        ("assistant", "one"),
        ("user", "second"),
    ]


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
def test_blank_input_is_refused(blank: str) -> None:
    """A whitespace-only user message is never dispatched."""
    loop, provider, _ = agent(ModelReply(text="never"))
    refusal = r"^empty user message: refusing to dispatch a blank turn$"
    with pytest.raises(AgentError, match=refusal):
        loop.turn(blank)
    assert provider.seen == []


def test_empty_terminal_reply_is_an_error() -> None:
    """A reply with neither text nor tool calls cannot end a turn."""
    loop, _, _ = agent(ModelReply(text=""))
    with pytest.raises(AgentError, match=r"^provider completed without final text or tool calls$"):
        loop.turn("hi")


def test_iteration_cap_runs_the_last_tools_then_errors() -> None:
    """Ten tool-asking replies in a row: all ten rounds of tools run, then the loop gives up."""
    replies = [ModelReply(tool_calls=(echo(str(i)),)) for i in range(MAX_TOOL_ITERATIONS + 1)]
    loop, provider, observer = agent(*replies)
    with pytest.raises(AgentError, match=r"^Agent exceeded maximum tool iterations \(10\)$"):
        loop.turn("loop forever")
    assert len(provider.seen) == MAX_TOOL_ITERATIONS
    assert len(observer.record("").tool_calls) == MAX_TOOL_ITERATIONS


def test_unknown_tool_is_recorded_and_the_loop_goes_on() -> None:
    """An unknown tool is a failed call the model hears about, not an error."""
    loop, provider, observer = agent(
        ModelReply(tool_calls=(ToolCall(id="c1", name="shout", arguments={}),)),
        ModelReply(text="ok"),
    )
    assert loop.turn("shout") == "ok"
    (call,) = observer.record("").tool_calls
    assert (call.name, call.success, call.result) == ("shout", False, "Unknown tool: shout")
    assert provider.seen[1][-1].content == "Unknown tool: shout"

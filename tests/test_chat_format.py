"""Mapping to and from the OpenAI chat-completions format."""

from __future__ import annotations

from harness.chat_format import (
    from_openai_message,
    from_openai_messages,
    to_openai_message,
    to_openai_messages,
    to_openai_tools,
    to_openai_usage,
)
from harness.messages import Message, ModelReply, ToolCall, Usage
from harness.replay.tools import EchoTool, spec_of


def test_tools_become_function_tools() -> None:
    """A ToolSpec is a `{"type": "function", "function": {...}}` entry."""
    (entry,) = to_openai_tools([spec_of(EchoTool())])
    assert entry["type"] == "function"
    assert entry["function"]["name"] == "echo"
    assert entry["function"]["parameters"]["required"] == ["message"]


def test_conversation_round_trips() -> None:
    """user, assistant with tool calls, and tool messages survive a round trip."""
    conversation = [
        Message(role="system", content="be brief"),
        Message(role="user", content="echo hi"),
        Message(
            role="assistant",
            tool_calls=(ToolCall(id="c1", name="echo", arguments={"message": "hi"}),),
        ),
        Message(role="tool", content="hi", tool_call_id="c1"),
    ]
    dicts = to_openai_messages(conversation)
    assert dicts[2]["tool_calls"] == [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "echo", "arguments": '{"message": "hi"}'},
        }
    ]
    assert dicts[3] == {"role": "tool", "content": "hi", "tool_call_id": "c1"}
    assert from_openai_messages(dicts) == conversation


def test_reply_is_an_assistant_message() -> None:
    """A ModelReply maps to the assistant message a completion returns."""
    reply = ModelReply(text="done", usage=Usage(input_tokens=3, output_tokens=2))
    assert to_openai_message(reply) == {"role": "assistant", "content": "done"}
    assert to_openai_usage(reply.usage) == {
        "prompt_tokens": 3,
        "completion_tokens": 2,
        "total_tokens": 5,
    }


def test_unparseable_arguments_and_content_parts() -> None:
    """Malformed JSON arguments are kept as the model's string; content parts are joined."""
    message = from_openai_message(
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "tool_calls": [{"id": "c", "function": {"name": "echo", "arguments": "{oops"}}],
        }
    )
    assert message.content == "ab"
    assert message.tool_calls[0].arguments == "{oops"
    assert from_openai_message({"role": "assistant", "content": None}).content == ""

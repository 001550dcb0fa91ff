"""Reading upstream answers back into steps, for every protocol, streamed or not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.authoring.transcript import Call, read_reply, tool_results
from harness.errors import UsageError


def sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "output": [
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_9",
            "name": "lookup",
            "arguments": '{"q":"x"}',
        },
        {
            "type": "message",
            "id": "m1",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok"}],
        },
    ],
    "usage": {"input_tokens": 12, "output_tokens": 3},
}


def test_a_responses_answer_gives_its_calls_text_and_tokens() -> None:
    """`function_call` items are calls by `call_id`; `output_text` parts are the text."""
    reply = read_reply("responses", json.dumps(RESPONSE).encode(), streamed=False)
    assert reply.calls == (Call(id="call_9", name="lookup", arguments={"q": "x"}),)
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ("ok", 12, 3)


def test_a_responses_stream_is_read_from_its_completed_event() -> None:
    """The streamed answer is the `response.completed` event's response."""
    events = [
        {"type": "response.created", "response": {**RESPONSE, "output": []}},
        {"type": "response.completed", "response": RESPONSE},
    ]
    reply = read_reply("responses", sse(events), streamed=True)
    assert reply.calls[0].id == "call_9"


def test_a_stream_without_its_end_is_a_usage_error() -> None:
    """A Responses stream with no `response.completed` cannot be recorded."""
    with pytest.raises(UsageError, match=r"response\.completed"):
        read_reply("responses", sse([{"type": "response.created", "response": {}}]), True)


def test_tool_results_are_found_in_each_protocol() -> None:
    """Results by call id: a tool message, a function_call_output item, a tool_result block."""
    chat = {"messages": [{"role": "tool", "tool_call_id": "a", "content": "r1"}]}
    responses = {"input": [{"type": "function_call_output", "call_id": "b", "output": "r2"}]}
    anthropic = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "c",
                        "content": [{"type": "text", "text": "r3"}],
                        "is_error": True,
                    }
                ],
            }
        ]
    }
    assert list(tool_results("chat", chat)) == [("a", "r1", False)]
    assert list(tool_results("responses", responses)) == [("b", "r2", False)]
    assert list(tool_results("anthropic", anthropic)) == [("c", "r3", True)]

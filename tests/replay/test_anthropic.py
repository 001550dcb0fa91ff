"""The Anthropic Messages protocol: tool_result blocks with is_error, the official events."""

from __future__ import annotations

import json

from harness.messages import ModelReply, ToolCall, Usage
from harness.replay.anthropic import ANTHROPIC

REPLY = ModelReply(
    tool_calls=(ToolCall(id="call_1", name="echo", arguments={"message": "hi"}),),
    usage=Usage(input_tokens=3, output_tokens=2),
)


def test_results_are_tool_result_blocks_and_is_error_fails_them() -> None:
    """Blocks of user messages only; string or block content; is_error marks a failed call."""
    body = {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "x"}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "ok"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "b",
                        "content": [{"type": "text", "text": "bad"}],
                        "is_error": True,
                    },
                ],
            },
        ]
    }
    assert [(r.call_id, r.text, r.failed) for r in ANTHROPIC.results(body)] == [
        ("a", "ok", False),
        ("b", "bad", True),
    ]


def test_the_reply_is_tool_use_blocks_with_stop_reason() -> None:
    """An `input` object, `stop_reason: tool_use`, input/output token usage."""
    answer = ANTHROPIC.reply("r1", {"model": "m"}, REPLY)
    assert answer["content"] == [
        {"type": "tool_use", "id": "call_1", "name": "echo", "input": {"message": "hi"}}
    ]
    assert (answer["stop_reason"], answer["usage"]["output_tokens"]) == ("tool_use", 2)
    text = ANTHROPIC.reply("r2", {}, ModelReply(text="done"))
    assert (text["content"], text["stop_reason"]) == (
        [{"type": "text", "text": "done"}],
        "end_turn",
    )


def test_the_stream_names_every_event() -> None:
    """message_start first, blocks indexed from 0, the arguments as input_json_delta."""
    events = list(ANTHROPIC.events("r1", {}, REPLY))
    assert [name for name, _ in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == name for name, data in events)
    delta = events[3][1]["delta"]
    assert (delta["type"], json.loads(delta["partial_json"])) == (
        "input_json_delta",
        {"message": "hi"},
    )
    assert events[5][1]["delta"]["stop_reason"] == "tool_use"

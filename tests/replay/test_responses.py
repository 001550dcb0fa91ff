"""The Responses protocol: results read from `input`, the official event sequence."""

from __future__ import annotations

import json

from harness.messages import ModelReply, ToolCall, Usage
from harness.replay.responses import RESPONSES

REPLY = ModelReply(
    text="Let me check.",
    tool_calls=(ToolCall(id="call_1", name="echo", arguments={"message": "hi"}),),
    usage=Usage(input_tokens=3, output_tokens=2),
)


def test_results_are_the_function_call_outputs() -> None:
    """Matched by call_id; list outputs are read as their text."""
    body = {
        "input": [
            {"role": "user", "content": "q"},
            {"type": "function_call", "call_id": "call_1", "name": "echo", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "plain"},
            {"type": "function_call_output", "call_id": "c2", "output": [{"text": "a"}]},
        ]
    }
    assert [(r.call_id, r.text) for r in RESPONSES.results(body)] == [
        ("call_1", "plain"),
        ("c2", "a"),
    ]


def test_the_reply_holds_a_message_and_function_call_items() -> None:
    """JSON-string arguments, call_id, and input/output token usage."""
    answer = RESPONSES.reply("r1", {"model": "m"}, REPLY)
    message, call = answer["output"]
    assert message["content"][0] == {
        "type": "output_text",
        "text": "Let me check.",
        "annotations": [],
        "logprobs": [],
    }
    assert (call["call_id"], json.loads(call["arguments"])) == ("call_1", {"message": "hi"})
    assert (answer["usage"]["input_tokens"], answer["usage"]["output_tokens"]) == (3, 2)


def test_the_stream_is_the_official_sequence() -> None:
    """Named events, numbered in order, from created (output: []) to completed (all output)."""
    events = list(RESPONSES.events("r1", {}, REPLY))
    names = [name for name, _ in events]
    assert names == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert all(data["type"] == name for name, data in events)
    assert [data["sequence_number"] for _, data in events] == list(range(len(events)))
    assert events[0][1]["response"]["output"] == []
    assert len(events[-1][1]["response"]["output"]) == 2


def test_state_the_endpoint_does_not_keep_is_refused() -> None:
    """previous_response_id is never silently ignored."""
    problem = RESPONSES.problem({"previous_response_id": "resp_1"})
    assert problem is not None
    assert "keeps no responses" in problem

"""The OpenAI Responses API over the wire: `POST /v1/responses`.

The request is read from `input`: message items, `function_call` items and
`function_call_output` items; tool results are the `function_call_output` items, matched by
`call_id`. A scripted reply is answered as a `response` whose `output` holds a `message` item
(`output_text`) and one `function_call` item per call (`call_id`, `name`, JSON-string
`arguments`), or, with `"stream": true`, as the official event sequence from
`response.created` to `response.completed`, each event with its `type` and `sequence_number`.

`previous_response_id` is refused: the endpoint keeps no responses, and ignoring it would
replay a conversation the agent never sent. The protocol has no way to say a tool failed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from harness.chat_format import content_text
from harness.messages import ModelReply, ToolCall
from harness.replay.chat_completions import openai_error
from harness.replay.protocol import (
    MODEL_ID,
    WITH_ERROR_FLAG,
    SseEvent,
    WireResult,
    stream_options_problem,
)
from harness.replay.wire_types import request_problem

__all__ = ["RESPONSES"]

_UNSUPPORTED = {
    "previous_response_id": "the replay endpoint keeps no responses; send the whole `input`",
    "conversation": "the replay endpoint keeps no conversations; send the whole `input`",
    "background": "a replay answers at once; background responses cannot be replayed",
    "top_logprobs": "the script has no token probabilities",
}


class Responses:
    """The Responses protocol."""

    name = "responses"
    carries_success = "responses" in WITH_ERROR_FLAG
    done_marker = False

    def problem(self, body: Mapping[str, Any]) -> str | None:
        """Stateful or probabilistic parameters; a request its SDK would not send."""
        for key, why in _UNSUPPORTED.items():
            if body.get(key):
                return f'"{key}" is not supported: {why}'
        include = body.get("include")
        if isinstance(include, list) and "message.output_text.logprobs" in include:
            return '"include": logprobs cannot be replayed: the script has no token probabilities'
        return stream_options_problem(body) or request_problem(self.name, body)

    def results(self, body: Mapping[str, Any]) -> Iterator[WireResult]:
        """Each `function_call_output` item of `input`."""
        items = body.get("input")
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                output = item.get("output")
                yield WireResult(call_id=str(item.get("call_id")), text=content_text(output))

    def reply(self, reply_id: str, body: Mapping[str, Any], reply: ModelReply) -> Any:
        """One completed `response`."""
        return _response(reply_id, body, _output(reply_id, reply), reply)

    def events(
        self, reply_id: str, body: Mapping[str, Any], reply: ModelReply
    ) -> Iterator[SseEvent]:
        """created, in_progress, each item added/delta/done, then completed."""
        sequence = iter(range(1 << 30))

        def event(kind: str, **fields: Any) -> SseEvent:
            return kind, {"type": kind, "sequence_number": next(sequence), **fields}

        started = _response(reply_id, body, [], None)
        yield event("response.created", response=started)
        yield event("response.in_progress", response=started)
        output = _output(reply_id, reply)
        for index, item in enumerate(output):
            if item["type"] == "message":
                yield from _message_events(event, index, item)
            else:
                yield from _call_events(event, index, item)
        yield event("response.completed", response=_response(reply_id, body, output, reply))

    def error(self, status: int, message: str, code: str) -> Any:
        """An OpenAI error body."""
        return openai_error(status, message, code)


def _message_events(event: Any, index: int, item: dict[str, Any]) -> Iterator[SseEvent]:
    text = item["content"][0]["text"]
    ids = {"output_index": index, "item_id": item["id"], "content_index": 0}
    yield event(
        "response.output_item.added",
        output_index=index,
        item={**item, "status": "in_progress", "content": []},
    )
    yield event("response.content_part.added", **ids, part=_text_part(""))
    yield event("response.output_text.delta", **ids, delta=text, logprobs=[])
    yield event("response.output_text.done", **ids, text=text, logprobs=[])
    yield event("response.content_part.done", **ids, part=_text_part(text))
    yield event("response.output_item.done", output_index=index, item=item)


def _call_events(event: Any, index: int, item: dict[str, Any]) -> Iterator[SseEvent]:
    arguments = item["arguments"]
    yield event(
        "response.output_item.added",
        output_index=index,
        item={**item, "arguments": "", "status": "in_progress"},
    )
    ids = {"output_index": index, "item_id": item["id"]}
    yield event("response.function_call_arguments.delta", **ids, delta=arguments)
    yield event(
        "response.function_call_arguments.done", **ids, arguments=arguments, name=item["name"]
    )
    yield event("response.output_item.done", output_index=index, item=item)


def _output(reply_id: str, reply: ModelReply) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = []
    if reply.text or not reply.tool_calls:
        output.append(
            {
                "type": "message",
                "id": f"msg_{reply_id}",
                "role": "assistant",
                "status": "completed",
                "content": [_text_part(reply.text)],
            }
        )
    output.extend(_call_item(call) for call in reply.tool_calls)
    return output


def _call_item(call: ToolCall) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call.id}",
        "call_id": call.id,
        "name": call.name,
        "arguments": json.dumps(call.arguments),
        "status": "completed",
    }


def _text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _response(
    reply_id: str, body: Mapping[str, Any], output: list[dict[str, Any]], reply: ModelReply | None
) -> dict[str, Any]:
    usage = None
    if reply is not None:
        tokens_in, tokens_out = reply.usage.input_tokens, reply.usage.output_tokens
        usage = {
            "input_tokens": tokens_in,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": tokens_out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tokens_in + tokens_out,
        }
    return {
        "id": reply_id,
        "object": "response",
        "created_at": 0,
        "status": "in_progress" if reply is None else "completed",
        "model": str(body.get("model") or MODEL_ID),
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "metadata": {},
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "text": {"format": {"type": "text"}},
        "truncation": "disabled",
        "previous_response_id": None,
        "store": False,
        "output": output,
        "usage": usage,
    }


RESPONSES = Responses()
"""The protocol of `/v1/responses`."""

"""Anthropic Messages over the wire: `POST /v1/messages`.

Tool results are the `tool_result` blocks of user messages, matched by `tool_use_id`; one
with `is_error: true` is recorded as a failed call, the only protocol that can say so. A
scripted reply is answered as a `message` whose content holds a `text` block and one
`tool_use` block per call (`id`, `name`, an `input` object), with `stop_reason` `tool_use` or
`end_turn`; or, with `"stream": true`, as the official events (`message_start`,
`content_block_start`/`_delta`/`_stop`, `message_delta`, `message_stop`), each under its
`event:` name, which the Anthropic clients require.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from harness.chat_format import content_text
from harness.messages import ModelReply
from harness.replay.protocol import (
    MODEL_ID,
    WITH_ERROR_FLAG,
    SseEvent,
    WireResult,
    stream_options_problem,
)
from harness.replay.wire_types import request_problem

__all__ = ["ANTHROPIC"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    411: "invalid_request_error",
    413: "request_too_large",
}


class Anthropic:
    """The Anthropic Messages protocol."""

    name = "anthropic"
    carries_success = "anthropic" in WITH_ERROR_FLAG
    done_marker = False

    def problem(self, body: Mapping[str, Any]) -> str | None:
        """A request its SDK would not send, or a non-object `stream_options`."""
        return stream_options_problem(body) or request_problem(self.name, body)

    def results(self, body: Mapping[str, Any]) -> Iterator[WireResult]:
        """Each `tool_result` block of the user messages."""
        messages = body.get("messages")
        for message in messages if isinstance(messages, list) else ():
            if not isinstance(message, dict) or message.get("role") != "user":
                continue
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    yield WireResult(
                        call_id=str(block.get("tool_use_id")),
                        text=content_text(block.get("content")),
                        failed=block.get("is_error") is True,
                    )

    def reply(self, reply_id: str, body: Mapping[str, Any], reply: ModelReply) -> Any:
        """One `message`."""
        return {
            **_message(reply_id, body, _blocks(reply)),
            "stop_reason": _stop(reply),
            "usage": _usage(reply.usage.input_tokens, reply.usage.output_tokens),
        }

    def events(
        self, reply_id: str, body: Mapping[str, Any], reply: ModelReply
    ) -> Iterator[SseEvent]:
        """message_start, each block started, filled and stopped, message_delta, message_stop."""
        start = {**_message(reply_id, body, []), "usage": _usage(reply.usage.input_tokens, 0)}
        yield "message_start", {"type": "message_start", "message": start}
        yield "ping", {"type": "ping"}
        for index, block in enumerate(_blocks(reply)):
            opened: dict[str, Any]
            delta: dict[str, Any]
            if block["type"] == "text":
                opened = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                opened = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": opened,
                },
            )
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": delta,
                },
            )
            yield "content_block_stop", {"type": "content_block_stop", "index": index}
        yield (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": _stop(reply), "stop_sequence": None},
                "usage": {"output_tokens": reply.usage.output_tokens},
            },
        )
        yield "message_stop", {"type": "message_stop"}

    def error(self, status: int, message: str, code: str) -> Any:
        """An Anthropic error body."""
        kind = _ERROR_TYPES.get(status, "invalid_request_error" if status < 500 else "api_error")
        return {"type": "error", "error": {"type": kind, "message": message, "code": code}}


def _message(reply_id: str, body: Mapping[str, Any], content: list[Any]) -> dict[str, Any]:
    return {
        "id": f"msg_{reply_id}",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or MODEL_ID),
        "content": content,
        "stop_reason": None,
        "stop_sequence": None,
    }


def _blocks(reply: ModelReply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text or not reply.tool_calls:
        blocks.append({"type": "text", "text": reply.text})
    blocks.extend(
        {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        for call in reply.tool_calls
    )
    return blocks


def _stop(reply: ModelReply) -> str:
    return "tool_use" if reply.tool_calls else "end_turn"


def _usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


ANTHROPIC = Anthropic()
"""The protocol of `/v1/messages`."""

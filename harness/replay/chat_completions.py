"""OpenAI Chat Completions over the wire: `POST /v1/chat/completions`.

Tool results are the `role: tool` messages, matched by `tool_call_id`. A scripted reply is
answered as one choice whose message carries `tool_calls` (JSON-string arguments) or text,
or, with `"stream": true`, as `chat.completion.chunk` events ending with `data: [DONE]`.
The protocol has no way to say a tool failed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from harness.chat_format import (
    content_text,
    to_openai_message,
    to_openai_tool_call,
    to_openai_usage,
)
from harness.messages import ModelReply
from harness.replay.protocol import (
    MODEL_ID,
    WITH_ERROR_FLAG,
    SseEvent,
    WireResult,
    stream_options_problem,
)
from harness.replay.wire_types import request_problem

__all__ = ["CHAT_COMPLETIONS", "openai_error"]


class ChatCompletions:
    """The Chat Completions protocol."""

    name = "chat_completions"
    carries_success = "chat_completions" in WITH_ERROR_FLAG
    done_marker = True

    def problem(self, body: Mapping[str, Any]) -> str | None:
        """`n` above 1 and log probabilities (not replayable); a request no SDK would send."""
        n = body.get("n")
        if n is not None and n != 1:
            return f'"n": {n!r} asks for several choices; a replay has exactly one'
        if body.get("logprobs") or body.get("top_logprobs"):
            return '"logprobs" cannot be replayed: the script has no token probabilities'
        return stream_options_problem(body) or request_problem(self.name, body)

    def results(self, body: Mapping[str, Any]) -> Iterator[WireResult]:
        """Each `role: tool` message of the history."""
        messages = body.get("messages")
        for message in messages if isinstance(messages, list) else ():
            if isinstance(message, dict) and message.get("role") == "tool":
                yield WireResult(
                    call_id=str(message.get("tool_call_id")),
                    text=content_text(message.get("content")),
                )

    def reply(self, reply_id: str, body: Mapping[str, Any], reply: ModelReply) -> Any:
        """One `chat.completion` with one choice."""
        message = to_openai_message(reply)
        if reply.tool_calls and not reply.text:
            message["content"] = None
        return {
            "id": reply_id,
            "object": "chat.completion",
            "created": 0,
            "model": _model(body),
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(reply)}
            ],
            "usage": to_openai_usage(reply.usage),
        }

    def events(
        self, reply_id: str, body: Mapping[str, Any], reply: ModelReply
    ) -> Iterator[SseEvent]:
        """Chunks: the role, the text, each call, the finish reason, the usage if asked."""
        base = {
            "id": reply_id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": _model(body),
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> SseEvent:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return None, {**base, "choices": [choice]}

        yield chunk({"role": "assistant", "content": ""})
        if reply.text:
            yield chunk({"content": reply.text})
        for index, call in enumerate(reply.tool_calls):
            yield chunk({"tool_calls": [{"index": index, **to_openai_tool_call(call)}]})
        yield chunk({}, _finish(reply))
        if (body.get("stream_options") or {}).get("include_usage"):
            yield None, {**base, "choices": [], "usage": to_openai_usage(reply.usage)}

    def error(self, status: int, message: str, code: str) -> Any:
        """An OpenAI error body."""
        return openai_error(status, message, code)


def openai_error(status: int, message: str, code: str) -> Any:
    """An OpenAI-style error body (Chat Completions and Responses share it)."""
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _model(body: Mapping[str, Any]) -> str:
    return str(body.get("model") or MODEL_ID)


def _finish(reply: ModelReply) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


CHAT_COMPLETIONS = ChatCompletions()
"""The protocol of `/v1/chat/completions`."""

"""What one wire protocol of the replay endpoint is: the `WireProtocol` each module implements.

The endpoint speaks three protocols, one module each: `chat_completions` (OpenAI Chat
Completions), `responses` (the OpenAI Responses API) and `anthropic` (Anthropic Messages). A
protocol reads what the agent sent (the tool results it carries, the parameters the replay
cannot honour) and shapes a scripted `ModelReply` as that protocol's answer, whole or as
server-sent events.

What a protocol lets the harness observe differs: every one carries the calls the model made
and the results the agent sent back, but only Anthropic's `tool_result.is_error` says whether a
call failed (`carries_success`, from the table in `harness.fixtures.observability`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from harness.fixtures.observability import WITH_ERROR_FLAG
from harness.messages import ModelReply

__all__ = [
    "MODEL_ID",
    "ROUTES",
    "WITH_ERROR_FLAG",
    "SseEvent",
    "WireProtocol",
    "WireResult",
    "protocols_of",
    "stream_options_problem",
]

MODEL_ID = "harness-replay"
"""The model name answered when a request names none."""

ROUTES = {
    "/v1/chat/completions": "chat_completions",
    "/chat/completions": "chat_completions",
    "/v1/responses": "responses",
    "/responses": "responses",
    "/v1/messages": "anthropic",
}
"""Each path the endpoint answers (the query string ignored), and the protocol it speaks."""


def protocols_of(requests: Iterable[Any]) -> frozenset[str]:
    """The protocols a case's kept requests (`{"path", "status", "body"}`) spoke."""
    return frozenset(
        ROUTES[request["path"].rstrip("/")]
        for request in requests
        if isinstance(request, dict)
        and isinstance(request.get("path"), str)
        and request["path"].rstrip("/") in ROUTES
    )


@dataclass(frozen=True, kw_only=True)
class WireResult:
    """One tool result the agent sent back over the wire."""

    call_id: str
    """The id of the call it answers (`tool_call_id`, `call_id`, `tool_use_id`)."""
    text: str
    """The result, as text."""
    failed: bool = False
    """Whether the agent marked it as failed (only Anthropic's `is_error` can)."""


SseEvent = tuple[str | None, Any]
"""One server-sent event: its `event:` name (None: no name line) and its `data` payload."""


class WireProtocol(Protocol):
    """One protocol the endpoint speaks."""

    name: str
    """How reports and refusals name it: `chat_completions`, `responses` or `anthropic`."""
    carries_success: bool
    """Whether a tool result can say the call failed."""
    done_marker: bool
    """Whether a stream ends with `data: [DONE]`."""

    def problem(self, body: Mapping[str, Any]) -> str | None:
        """Why the request cannot be answered faithfully (a parameter it asks for), or None."""
        ...

    def results(self, body: Mapping[str, Any]) -> Iterator[WireResult]:
        """The tool results the request carries, in order (the whole history, every time)."""
        ...

    def reply(self, reply_id: str, body: Mapping[str, Any], reply: ModelReply) -> Any:
        """`reply` as this protocol's whole JSON answer."""
        ...

    def events(
        self, reply_id: str, body: Mapping[str, Any], reply: ModelReply
    ) -> Iterator[SseEvent]:
        """`reply` as this protocol's server-sent event sequence."""
        ...

    def error(self, status: int, message: str, code: str) -> Any:
        """An error body in this protocol's shape."""
        ...


def stream_options_problem(body: Mapping[str, Any]) -> str | None:
    """Why `stream_options` cannot be read (it must be an object when sent)."""
    options = body.get("stream_options")
    if options is None or isinstance(options, dict):
        return None
    return f'"stream_options" must be an object, not {type(options).__name__}'

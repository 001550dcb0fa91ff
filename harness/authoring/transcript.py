"""What a recorded run said, read back from its model exchanges, in any of the three protocols.

Each answer of the upstream (JSON, or the server-sent events of a stream) becomes one step: the
text, or the tool calls with their ids, names and arguments, and the token counts. Each later
request carries the results the agent sent back for those calls (a `role: tool` message, a
`function_call_output` item or a `tool_result` block), matched by call id.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from harness.errors import UsageError

__all__ = ["Call", "Reply", "read_reply", "tool_results"]


class Call(msgspec.Struct, frozen=True, kw_only=True):
    """One tool call the model asked for."""

    id: str
    name: str
    arguments: Any
    """Parsed JSON where the protocol sends a JSON string; as sent otherwise."""


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    """One model answer, as a fixture step holds it."""

    text: str = ""
    calls: tuple[Call, ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0


def read_reply(protocol: str, body: bytes, streamed: bool) -> Reply:
    """The step an upstream answer makes.

    Raises:
        UsageError: The answer is not one of the protocol's shapes.
    """
    try:
        if protocol == "chat":
            return _chat_stream(_events(body)) if streamed else _chat(json.loads(body))
        if protocol == "responses":
            return _responses(_completed(_events(body)) if streamed else json.loads(body))
        return _anthropic_stream(_events(body)) if streamed else _anthropic(json.loads(body))
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise UsageError(f"the upstream's {protocol} answer cannot be read: {exc}") from None


def tool_results(protocol: str, request: Any) -> Iterator[tuple[str, str, bool]]:
    """`(call id, result text, is_error)` for each tool result a request carries."""
    if not isinstance(request, dict):
        return
    if protocol == "responses":
        items = request.get("input")
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                yield str(item.get("call_id")), _text(item.get("output")), False
        return
    for message in request.get("messages") or ():
        if not isinstance(message, dict):
            continue
        if protocol == "chat" and message.get("role") == "tool":
            yield str(message.get("tool_call_id")), _text(message.get("content")), False
        content = message.get("content")
        if protocol == "anthropic" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    result = _text(block.get("content"))
                    yield str(block.get("tool_use_id")), result, bool(block.get("is_error"))


def _text(content: Any) -> str:
    """The text of a message content: a string, or the text of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else json.dumps(content)


def _arguments(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return text  # kept as the model sent it: the replay hands it back the same way


def _events(body: bytes) -> list[dict[str, Any]]:
    """The JSON payloads of a server-sent event stream, in order (`[DONE]` dropped)."""
    events = []
    for line in body.decode("utf-8").splitlines():
        if line.startswith("data:"):
            data = line[5:].strip()
            if data and data != "[DONE]":
                events.append(json.loads(data))
    return events


MAX_TOKENS = 10**9
"""The most tokens one answer may count: more is no real count."""


def _count(value: Any) -> int:
    """A token count read off an answer's `usage`: absent is 0.

    Raises:
        ValueError: It is not a whole number from 0 to `MAX_TOKENS`.
    """
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        raise ValueError(f"a token count of {str(value)[:40]} is not from 0 to {MAX_TOKENS}")
    return value


_CHAT_USAGE = ("prompt_tokens", "completion_tokens")
"""Chat completions' names for the input and output token counts of its `usage`."""


def _reply(
    text: str,
    calls: tuple[Call, ...],
    usage: dict[str, Any] | None,
    names: tuple[str, str] = ("input_tokens", "output_tokens"),
) -> Reply:
    """A reply with the token counts read off `usage` under `names` (input, output)."""
    usage = usage or {}
    return Reply(
        text=text,
        calls=calls,
        input_tokens=_count(usage.get(names[0])),
        output_tokens=_count(usage.get(names[1])),
    )


def _chat(body: dict[str, Any]) -> Reply:
    message = body["choices"][0]["message"]
    calls = tuple(
        Call(
            id=call["id"],
            name=call["function"]["name"],
            arguments=_arguments(call["function"]["arguments"]),
        )
        for call in message.get("tool_calls") or ()
    )
    return _reply(message.get("content") or "", calls, body.get("usage"), _CHAT_USAGE)


def _chat_stream(events: Sequence[dict[str, Any]]) -> Reply:
    text: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    usage: dict[str, Any] = {}
    for event in events:
        usage = event.get("usage") or usage
        for choice in event.get("choices") or ():
            delta = choice.get("delta") or {}
            text.append(delta.get("content") or "")
            for part in delta.get("tool_calls") or ():
                call = calls.setdefault(part.get("index", 0), {"id": "", "name": "", "args": ""})
                call["id"] = part.get("id") or call["id"]
                function = part.get("function") or {}
                call["name"] += function.get("name") or ""
                call["args"] += function.get("arguments") or ""
    scripted = tuple(
        Call(id=c["id"], name=c["name"], arguments=_arguments(c["args"]))
        for _, c in sorted(calls.items())
    )
    return _reply("".join(text), scripted, usage, _CHAT_USAGE)


def _completed(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    for event in events:
        if event.get("type") == "response.completed":
            return dict(event["response"])
    raise ValueError("the stream has no response.completed event")


def _responses(body: dict[str, Any]) -> Reply:
    text: list[str] = []
    calls: list[Call] = []
    for item in body["output"]:
        if item.get("type") == "message":
            text.extend(
                part.get("text", "")
                for part in item.get("content") or ()
                if part.get("type") == "output_text"
            )
        elif item.get("type") == "function_call":
            calls.append(
                Call(id=item["call_id"], name=item["name"], arguments=_arguments(item["arguments"]))
            )
    return _reply("".join(text), tuple(calls), body.get("usage"))


def _anthropic(body: dict[str, Any]) -> Reply:
    text: list[str] = []
    calls: list[Call] = []
    for block in body["content"]:
        if block.get("type") == "text":
            text.append(block.get("text", ""))
        elif block.get("type") == "tool_use":
            calls.append(Call(id=block["id"], name=block["name"], arguments=block.get("input")))
    return _reply("".join(text), tuple(calls), body.get("usage"))


def _anthropic_stream(events: Sequence[dict[str, Any]]) -> Reply:
    blocks: dict[int, dict[str, Any]] = {}
    input_tokens = output_tokens = 0
    for event in events:
        kind = event.get("type")
        if kind == "message_start":
            input_tokens = _count(event["message"].get("usage", {}).get("input_tokens"))
        elif kind == "content_block_start":
            blocks[event["index"]] = {**event["content_block"], "json": ""}
        elif kind == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            block["text"] = block.get("text", "") + (delta.get("text") or "")
            block["json"] += delta.get("partial_json") or ""
        elif kind == "message_delta":
            usage = event.get("usage") or {}
            if usage.get("output_tokens") is not None:
                output_tokens = _count(usage["output_tokens"])
    content = []
    for _, block in sorted(blocks.items()):
        if block.get("type") == "tool_use" and block["json"]:
            block["input"] = json.loads(block["json"])
        content.append(block)
    reply = _anthropic({"content": content})
    return msgspec.structs.replace(reply, input_tokens=input_tokens, output_tokens=output_tokens)

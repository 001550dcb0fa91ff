"""Mapping harness messages to and from the OpenAI chat-completions format.

Most agents already speak this format; these functions let such an agent keep its own message
dicts and still talk to a harness `ModelProvider`:

- `Message(role, content)` is `{"role", "content"}`;
- an assistant `Message` with `tool_calls=(ToolCall(id, name, arguments),)` carries
  `"tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]`, where
  `arguments` is a JSON string;
- `Message(role="tool", content, tool_call_id)` is `{"role": "tool", "tool_call_id", "content"}`;
- `ToolSpec(name, description, parameters)` is
  `{"type": "function", "function": {"name", "description", "parameters"}}`;
- `Usage(input_tokens, output_tokens)` is `{"prompt_tokens", "completion_tokens", "total_tokens"}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.messages import Message, ModelReply, ToolCall, ToolSpec, Usage

__all__ = [
    "content_text",
    "from_openai_message",
    "from_openai_messages",
    "to_openai_message",
    "to_openai_messages",
    "to_openai_tool_call",
    "to_openai_tools",
    "to_openai_usage",
]


def to_openai_tools(specs: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs as OpenAI `tools` entries."""
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": dict(spec.parameters),
            },
        }
        for spec in specs
    ]


def to_openai_message(message: Message | ModelReply) -> dict[str, Any]:
    """One message (or a model reply, as the assistant message it is) as an OpenAI dict."""
    if isinstance(message, ModelReply):
        message = Message(role="assistant", content=message.text, tool_calls=message.tool_calls)
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [to_openai_tool_call(call) for call in message.tool_calls]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    return out


def to_openai_tool_call(call: ToolCall) -> dict[str, Any]:
    """One tool call as an OpenAI dict, its arguments as a JSON string."""
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }


def to_openai_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """A conversation as OpenAI message dicts."""
    return [to_openai_message(message) for message in messages]


def from_openai_message(message: Mapping[str, Any]) -> Message:
    """An OpenAI message dict as a harness `Message`.

    Tool-call arguments are parsed from their JSON string; arguments that are not valid JSON
    are kept as the string the model produced.
    """
    calls = tuple(
        ToolCall(
            id=str(call.get("id", "")),
            name=str(call.get("function", {}).get("name", "")),
            arguments=_arguments(call.get("function", {}).get("arguments")),
        )
        for call in message.get("tool_calls") or ()
    )
    return Message(
        role=message["role"],
        content=content_text(message.get("content")),
        tool_calls=calls,
        tool_call_id=message.get("tool_call_id"),
    )


def from_openai_messages(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """OpenAI message dicts as harness messages."""
    return [from_openai_message(message) for message in messages]


def to_openai_usage(usage: Usage) -> dict[str, int]:
    """Token usage as an OpenAI `usage` object."""
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _arguments(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        return json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return raw


def content_text(content: Any) -> str:
    """A message's `content` as text: a string as is, the text of content parts in order."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return json.dumps(content)

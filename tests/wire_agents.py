"""Agents that talk to the replay endpoint through the official `openai` client.

They hold their own tool (an `echo` like the harness's) and know nothing of the harness
beyond the base URL and key their factory receives, as a production agent would.
"""

from __future__ import annotations

import json
from typing import Any

from openai import OpenAI

from harness import CaseContext

ECHO_TOOL = {
    "type": "function",
    "function": {
        "name": "echo",
        "description": "Echo back the given message.",
        "parameters": {"type": "object", "properties": {"message": {"type": "string"}}},
    },
}


def echo(arguments: str) -> str:
    try:
        message = json.loads(arguments).get("message")
    except (ValueError, AttributeError):
        message = None
    return message if isinstance(message, str) else "(empty)"


class OpenAIAgent:
    """A chat-completions tool loop, optionally streaming."""

    def __init__(
        self, base_url: str, api_key: str, *, stream: bool, wrong_id: bool = False
    ) -> None:
        self.client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
        self.stream = stream
        self.wrong_id = wrong_id
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You are a helpful assistant."}
        ]

    def turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        for _ in range(10):
            content, calls = self._complete()
            self.messages.append(
                {
                    "role": "assistant",
                    "content": content or None,
                    **({"tool_calls": calls} if calls else {}),
                }
            )
            if not calls:
                return content
            for call in calls:
                call_id = "call_bogus" if self.wrong_id else call["id"]
                result = echo(call["function"]["arguments"])
                self.messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        raise RuntimeError("too many tool rounds")

    def _complete(self) -> tuple[str, list[dict[str, Any]]]:
        request: dict[str, Any] = {
            "model": "gpt-test",
            "messages": self.messages,
            "tools": [ECHO_TOOL],
            "temperature": 0,
        }
        if not self.stream:
            message = self.client.chat.completions.create(**request).choices[0].message
            calls = [call.model_dump(exclude_none=True) for call in message.tool_calls or ()]
            return message.content or "", calls
        content: list[str] = []
        calls_by_index: dict[int, dict[str, Any]] = {}
        stream = self.client.chat.completions.create(
            **request, stream=True, stream_options={"include_usage": True}
        )
        for chunk in stream:
            for choice in chunk.choices:
                delta = choice.delta
                content.append(delta.content or "")
                for part in delta.tool_calls or ():
                    call = calls_by_index.setdefault(
                        part.index,
                        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                    )
                    call["id"] = part.id or call["id"]
                    if part.function is not None:
                        call["function"]["name"] += part.function.name or ""
                        call["function"]["arguments"] += part.function.arguments or ""
        return "".join(content), [calls_by_index[i] for i in sorted(calls_by_index)]


def factory(context: CaseContext) -> OpenAIAgent:
    return OpenAIAgent(context.base_url, context.api_key, stream=False)


def streaming_factory(context: CaseContext) -> OpenAIAgent:
    return OpenAIAgent(context.base_url, context.api_key, stream=True)


def wrong_id_factory(context: CaseContext) -> OpenAIAgent:
    return OpenAIAgent(context.base_url, context.api_key, stream=False, wrong_id=True)

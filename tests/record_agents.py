"""Agents for `harness record` tests: real `openai` and `anthropic` SDK clients, one tool.

Each knows the harness only through the base URL and key its context gives it. The `weather`
tool answers from a table; the broken variants answer wrongly, as a regression would.
"""

from __future__ import annotations

import json
from typing import Any

from anthropic import Anthropic
from openai import OpenAI

from harness import CaseContext

WEATHER = {"Paris": "Sunny, 21C and a light breeze", "Oslo": "Snow showers, -3C"}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def weather(arguments: Any, *, broken: bool) -> str:
    city = arguments.get("city") if isinstance(arguments, dict) else None
    if broken:
        return "weather service unavailable"
    return WEATHER.get(str(city), "no such city")


class ChatAgent:
    """A chat-completions tool loop (streaming or not)."""

    def __init__(self, context: CaseContext, *, stream: bool, broken: bool = False) -> None:
        self.client = OpenAI(base_url=context.base_url, api_key=context.api_key, max_retries=0)
        self.stream, self.broken = stream, broken
        self.messages: list[Any] = []

    def turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        tools: Any = [{"type": "function", "function": {"name": "weather", "parameters": SCHEMA}}]
        for _ in range(5):
            text, calls = self._complete(tools)
            self.messages.append(
                {
                    "role": "assistant",
                    "content": text or None,
                    **({"tool_calls": calls} if calls else {}),
                }
            )
            if not calls:
                return text
            for call in calls:
                arguments = json.loads(call["function"]["arguments"])
                result = weather(arguments, broken=self.broken)
                self.messages.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": result}
                )
        raise RuntimeError("too many tool rounds")

    def _complete(self, tools: Any) -> tuple[str, list[dict[str, Any]]]:
        if not self.stream:
            message = (
                self.client.chat.completions.create(model="m", messages=self.messages, tools=tools)
                .choices[0]
                .message
            )
            calls = [call.model_dump(exclude_none=True) for call in message.tool_calls or ()]
            return message.content or "", calls
        text: list[str] = []
        calls_by_index: dict[int, dict[str, Any]] = {}
        stream: Any = self.client.chat.completions.create(
            model="m", messages=self.messages, tools=tools, stream=True
        )
        for chunk in stream:
            for choice in chunk.choices:
                text.append(choice.delta.content or "")
                for part in choice.delta.tool_calls or ():
                    call = calls_by_index.setdefault(
                        part.index,
                        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                    )
                    call["id"] = part.id or call["id"]
                    if part.function is not None:
                        call["function"]["name"] += part.function.name or ""
                        call["function"]["arguments"] += part.function.arguments or ""
        return "".join(text), [calls_by_index[i] for i in sorted(calls_by_index)]


class ClaudeAgent:
    """An Anthropic Messages tool loop (streaming or not)."""

    def __init__(self, context: CaseContext, *, stream: bool, broken: bool = False) -> None:
        base = context.anthropic_base_url
        self.client = Anthropic(base_url=base, api_key=context.api_key, max_retries=0)
        self.stream, self.broken = stream, broken
        self.messages: list[dict[str, Any]] = []

    def turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        tools: Any = [{"name": "weather", "description": "Weather now", "input_schema": SCHEMA}]
        for _ in range(5):
            request: Any = {
                "model": "m",
                "max_tokens": 256,
                "messages": self.messages,
                "tools": tools,
            }
            if self.stream:
                with self.client.messages.stream(**request) as stream:
                    message = stream.get_final_message()
            else:
                message = self.client.messages.create(**request)
            blocks = [block.model_dump(exclude_none=True) for block in message.content]
            self.messages.append({"role": "assistant", "content": blocks})
            uses = [block for block in message.content if block.type == "tool_use"]
            if not uses:
                return "".join(block.text for block in message.content if block.type == "text")
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": use.id,
                    "content": weather(use.input, broken=self.broken),
                }
                for use in uses
            ]
            self.messages.append({"role": "user", "content": results})
        raise RuntimeError("too many tool rounds")


def chat(context: CaseContext) -> ChatAgent:
    return ChatAgent(context, stream=False)


def chat_streaming(context: CaseContext) -> ChatAgent:
    return ChatAgent(context, stream=True)


def chat_broken(context: CaseContext) -> ChatAgent:
    return ChatAgent(context, stream=False, broken=True)


def claude(context: CaseContext) -> ClaudeAgent:
    return ClaudeAgent(context, stream=False)


def claude_streaming(context: CaseContext) -> ClaudeAgent:
    return ClaudeAgent(context, stream=True)


def claude_broken(context: CaseContext) -> ClaudeAgent:
    return ClaudeAgent(context, stream=False, broken=True)

"""Agents and tools the tests plug into the harness, as a project would.

- `SyncAgent`: a class-based, synchronous loop with a tool of its own (`upper`);
- `OpenAIStyleAgent`: an async loop that keeps its conversation as OpenAI chat-message dicts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from harness import CaseContext, Message, ModelProvider, Tool, ToolOutput, ToolRegistry
from harness.chat_format import from_openai_messages, to_openai_message, to_openai_tools


class UpperTool:
    """`upper`: the message in capitals."""

    name = "upper"
    description = "Return the message in upper case."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    }

    def call(self, arguments: Any) -> ToolOutput:
        return ToolOutput(text=str(arguments.get("message", "")).upper())


def upper_tools() -> list[Tool]:
    """The tools factory: `upper` (the harness adds `echo` beside it by default)."""
    return [UpperTool()]


class SyncAgent:
    """A plain synchronous agent loop over a harness provider and registry."""

    def __init__(self, provider: ModelProvider, tools: ToolRegistry) -> None:
        self.provider = provider
        self.tools = tools
        self.history: list[Message] = []

    def turn(self, user_input: str) -> str:
        self.history.append(Message(role="user", content=user_input))
        for _ in range(10):
            reply = self.provider.complete(self.history, self.tools.specs())
            self.history.append(
                Message(role="assistant", content=reply.text, tool_calls=reply.tool_calls)
            )
            if not reply.tool_calls:
                return reply.text
            for call in reply.tool_calls:
                output = self.tools.dispatch(call)
                self.history.append(Message(role="tool", content=output.text, tool_call_id=call.id))
        raise RuntimeError("too many tool rounds")


def sync_agent(context: CaseContext) -> SyncAgent:
    """The agent factory for `SyncAgent`."""
    return SyncAgent(context.provider, context.tools)


class OpenAIStyleAgent:
    """An async agent whose state is OpenAI chat messages, as most agents keep it."""

    def __init__(self, provider: ModelProvider, tools: ToolRegistry) -> None:
        self.provider = provider
        self.tools = tools
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You are a helpful assistant."}
        ]
        self.openai_tools = to_openai_tools(tools.specs())

    async def turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        while True:
            await asyncio.sleep(0)  # a real agent awaits its HTTP client here
            reply = self.provider.complete(from_openai_messages(self.messages), self.tools.specs())
            message = to_openai_message(reply)
            self.messages.append(message)
            if not message.get("tool_calls"):
                return str(message["content"])
            for call in from_openai_messages([message])[0].tool_calls:
                output = (
                    self.tools[call.name].call(call.arguments)
                    if call.name in self.tools
                    else self.tools.dispatch(call)
                )
                self.messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": output.text}
                )


def not_an_agent(context: CaseContext) -> int:
    """A broken factory: what it returns has no `turn`."""
    return 42


def openai_style_agent(context: CaseContext) -> OpenAIStyleAgent:
    """The agent factory for `OpenAIStyleAgent`."""
    return OpenAIStyleAgent(context.provider, context.tools)

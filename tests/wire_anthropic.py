"""Agents that talk to the replay endpoint through the official `anthropic` client.

A tool loop over Messages, sync or async, streaming or not. Broken variants send a wrong
result, or mark the result `is_error`, and their fixtures must fail on it.
"""

from __future__ import annotations

from typing import Any

from anthropic import Anthropic, AsyncAnthropic

from harness import CaseContext

ECHO_TOOL = {
    "name": "echo",
    "description": "Echo back the given message.",
    "input_schema": {"type": "object", "properties": {"message": {"type": "string"}}},
}
SYSTEM = "You are a helpful assistant."


def echo(arguments: Any) -> str:
    message = arguments.get("message") if isinstance(arguments, dict) else None
    return message if isinstance(message, str) else "(empty)"


class AnthropicAgent:
    """A Messages tool loop; `stream` uses the `messages.stream` helper."""

    def __init__(
        self, context: CaseContext, *, stream: bool, broken: bool = False, is_error: bool = False
    ) -> None:
        self.client = Anthropic(
            base_url=context.anthropic_base_url, api_key=context.api_key, max_retries=0
        )
        self.stream = stream
        self.broken = broken
        self.is_error = is_error
        self.messages: list[Any] = []

    def close(self) -> None:
        self.client.close()

    def turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        for _ in range(10):
            message = self._create()
            content = [block.model_dump(exclude_none=True) for block in message.content]
            self.messages.append({"role": "assistant", "content": content})
            calls = [block for block in message.content if block.type == "tool_use"]
            if not calls:
                return "".join(block.text for block in message.content if block.type == "text")
            self.messages.append({"role": "user", "content": [self._result(c) for c in calls]})
        raise RuntimeError("too many tool rounds")

    def _result(self, call: Any) -> dict[str, Any]:
        text = "(broken)" if self.broken else echo(call.input)
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id, "content": text}
        if self.is_error:
            result["is_error"] = True
        return result

    def _create(self) -> Any:
        request: dict[str, Any] = {
            "model": "claude-test",
            "max_tokens": 1024,
            "system": SYSTEM,
            "messages": self.messages,
            "tools": [ECHO_TOOL],
        }
        if not self.stream:
            return self.client.messages.create(**request)
        with self.client.messages.stream(**request) as stream:
            return stream.get_final_message()


class AsyncAnthropicAgent:
    """The same loop on `AsyncAnthropic`, streaming, with text blocks as content."""

    def __init__(self, context: CaseContext) -> None:
        self.context = context
        self.messages: list[Any] = []

    async def turn(self, user_input: str) -> str:
        context = self.context
        async with AsyncAnthropic(
            base_url=context.anthropic_base_url, api_key=context.api_key, max_retries=0
        ) as client:
            return await self._loop(client, user_input)

    async def _loop(self, client: AsyncAnthropic, user_input: str) -> str:
        self.messages.append({"role": "user", "content": [{"type": "text", "text": user_input}]})
        for _ in range(10):
            async with client.messages.stream(
                model="claude-test",
                max_tokens=1024,
                system=[{"type": "text", "text": SYSTEM}],
                messages=self.messages,
                tools=[ECHO_TOOL],  # type: ignore[list-item]
            ) as stream:
                message = await stream.get_final_message()
            content = [block.model_dump(exclude_none=True) for block in message.content]
            self.messages.append({"role": "assistant", "content": content})
            calls = [block for block in message.content if block.type == "tool_use"]
            if not calls:
                return "".join(block.text for block in message.content if block.type == "text")
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": [{"type": "text", "text": echo(call.input)}],
                    "is_error": False,
                }
                for call in calls
            ]
            self.messages.append({"role": "user", "content": results})
        raise RuntimeError("too many tool rounds")


def factory(context: CaseContext) -> AnthropicAgent:
    return AnthropicAgent(context, stream=False)


def streaming_factory(context: CaseContext) -> AnthropicAgent:
    return AnthropicAgent(context, stream=True)


def async_factory(context: CaseContext) -> AsyncAnthropicAgent:
    return AsyncAnthropicAgent(context)


def broken_factory(context: CaseContext) -> AnthropicAgent:
    return AnthropicAgent(context, stream=False, broken=True)


def is_error_factory(context: CaseContext) -> AnthropicAgent:
    return AnthropicAgent(context, stream=True, is_error=True)

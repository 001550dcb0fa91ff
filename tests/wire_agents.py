"""Agents that talk to the replay endpoint through the official `openai` client.

They hold their own tool (an `echo` like the harness's) and know nothing of the harness
beyond the base URL and key their factory receives, as a production agent would. Each has a
broken variant (a dropped or wrong tool result) that its fixtures must fail on.
"""

from __future__ import annotations

import json
from typing import Any

from openai import AsyncOpenAI, OpenAI

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
        self,
        base_url: str,
        api_key: str,
        *,
        stream: bool,
        wrong_id: bool = False,
        drop_result: bool = False,
    ) -> None:
        self.client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
        self.stream = stream
        self.wrong_id = wrong_id
        self.drop_result = drop_result
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You are a helpful assistant."}
        ]

    def close(self) -> None:
        self.client.close()

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
            for call in calls if not self.drop_result else ():
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


def dropping_factory(context: CaseContext) -> OpenAIAgent:
    return OpenAIAgent(context.base_url, context.api_key, stream=False, drop_result=True)


RESPONSES_TOOL: Any = {
    "type": "function",
    "name": "echo",
    "description": "Echo back the given message.",
    "parameters": {"type": "object", "properties": {"message": {"type": "string"}}},
}


class ResponsesAgent:
    """A Responses API tool loop: sync or async, streaming or not; `broken` echoes wrongly."""

    def __init__(self, context: CaseContext, *, stream: bool, broken: bool = False) -> None:
        self.client = OpenAI(base_url=context.base_url, api_key=context.api_key, max_retries=0)
        self.stream = stream
        self.broken = broken
        self.items: list[Any] = []

    def close(self) -> None:
        self.client.close()

    def turn(self, user_input: str) -> str:
        self.items.append({"role": "user", "content": user_input})
        for _ in range(10):
            response = self._create()
            self.items += [item.model_dump(exclude_none=True) for item in response.output]
            calls = [item for item in response.output if item.type == "function_call"]
            if not calls:
                return str(response.output_text)
            for call in calls:
                output = "(broken)" if self.broken else echo(call.arguments)
                self.items.append(
                    {"type": "function_call_output", "call_id": call.call_id, "output": output}
                )
        raise RuntimeError("too many tool rounds")

    def _create(self) -> Any:
        request: dict[str, Any] = {
            "model": "gpt-test",
            "instructions": "You are helpful.",
            "input": self.items,
            "tools": [RESPONSES_TOOL],
        }
        if not self.stream:
            return self.client.responses.create(**request)
        with self.client.responses.stream(**request) as stream:
            return stream.get_final_response()


class AsyncResponsesAgent:
    """The same loop on `AsyncOpenAI`, streaming through the raw event iterator."""

    def __init__(self, context: CaseContext) -> None:
        self.context = context
        self.items: list[Any] = []

    async def turn(self, user_input: str) -> str:
        context = self.context
        async with AsyncOpenAI(
            base_url=context.base_url, api_key=context.api_key, max_retries=0
        ) as client:
            return await self._loop(client, user_input)

    async def _loop(self, client: AsyncOpenAI, user_input: str) -> str:
        self.items.append({"role": "user", "content": user_input})
        for _ in range(10):
            events: Any = await client.responses.create(
                model="gpt-test", input=self.items, tools=[RESPONSES_TOOL], stream=True
            )
            response: Any = None
            async for event in events:
                if event.type == "response.completed":
                    response = event.response
            assert response is not None, "no response.completed event"
            self.items += [item.model_dump(exclude_none=True) for item in response.output]
            calls = [item for item in response.output if item.type == "function_call"]
            if not calls:
                return str(response.output_text)
            for call in calls:
                output = echo(call.arguments)
                self.items.append(
                    {"type": "function_call_output", "call_id": call.call_id, "output": output}
                )
        raise RuntimeError("too many tool rounds")


def responses_factory(context: CaseContext) -> ResponsesAgent:
    return ResponsesAgent(context, stream=False)


def responses_streaming_factory(context: CaseContext) -> ResponsesAgent:
    return ResponsesAgent(context, stream=True)


def responses_broken_factory(context: CaseContext) -> ResponsesAgent:
    return ResponsesAgent(context, stream=False, broken=True)


def responses_async_factory(context: CaseContext) -> AsyncResponsesAgent:
    return AsyncResponsesAgent(context)

"""Agents for `harness record` tests: real `openai` and `anthropic` SDK clients, one tool.

Each knows the harness only through the base URL and key its context gives it. The `weather`
tool answers from a table; the broken variants answer wrongly, as a regression would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
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

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

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

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

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


def echo(arguments: Any, broken: str) -> tuple[str, bool]:
    """The echo tool, working (`""`) or `broken`: (result, whether it failed)."""
    message = str(arguments.get("message", "")) if isinstance(arguments, dict) else ""
    try:
        if broken == "raises":
            raise RuntimeError("echo backend unavailable")
        if broken == "altered":
            return message.upper() + " (cached)", False
        return ("" if broken == "empty" else message), False
    except RuntimeError as exc:
        return f"error: {exc}", True


class EchoAgent:
    """An `echo` tool loop over chat completions, Responses or Anthropic Messages, in one of
    two styles.

    `tool` sends each result back as the protocol's tool-result message; `text` sends the call
    and its result as plain text (`Observation: ...`), as ReAct-style loops do, so no
    protocol ties the result to its call. `broken` makes the tool return an altered value
    (`altered`), raise (`raises`, sent back as the error it is) or return nothing (`empty`).
    """

    def __init__(
        self, context: CaseContext, *, protocol: str, style: str = "tool", broken: str = ""
    ) -> None:
        self.protocol, self.style, self.broken = protocol, style, broken
        if protocol == "anthropic":
            base = context.anthropic_base_url
            self.claude = Anthropic(base_url=base, api_key=context.api_key, max_retries=0)
        else:
            self.openai = OpenAI(base_url=context.base_url, api_key=context.api_key, max_retries=0)
        self.messages: list[Any] = []

    def close(self) -> None:
        """Close the client's connections."""
        client: Any = self.claude if self.protocol == "anthropic" else self.openai
        client.close()

    def echo(self, arguments: Any) -> tuple[str, bool]:
        """The tool: (result, failed)."""
        return echo(arguments, self.broken)

    def turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        for _ in range(5):
            text, calls = self._complete()
            if not calls:
                self.messages.append({"role": "assistant", "content": text})
                return text
            self._answer(calls)
        raise RuntimeError("too many tool rounds")

    def _complete(self) -> tuple[str, list[tuple[str, str, Any]]]:
        """The reply's text and its calls as (id, name, arguments)."""
        if self.protocol == "anthropic":
            tool: Any = {"name": "echo", "input_schema": ECHO_SCHEMA}
            reply = self.claude.messages.create(
                model="m", max_tokens=256, messages=self.messages, tools=[tool]
            )
            text = "".join(block.text for block in reply.content if block.type == "text")
            calls = [(b.id, b.name, b.input) for b in reply.content if b.type == "tool_use"]
            return text, calls
        if self.protocol == "responses":
            tool = {"type": "function", "name": "echo", "parameters": ECHO_SCHEMA}
            response = self.openai.responses.create(model="m", input=self.messages, tools=[tool])
            said = [item for item in response.output if item.type == "function_call"]
            asked = [(c.call_id, c.name, json.loads(c.arguments)) for c in said]
            return response.output_text, asked
        spec: Any = {"type": "function", "function": {"name": "echo", "parameters": ECHO_SCHEMA}}
        message = (
            self.openai.chat.completions.create(model="m", messages=self.messages, tools=[spec])
            .choices[0]
            .message
        )
        calls = [
            (c.id, c.function.name, json.loads(c.function.arguments))
            for c in message.tool_calls or ()
            if c.type == "function"
        ]
        return message.content or "", calls

    def _answer(self, calls: list[tuple[str, str, Any]]) -> None:
        results = [
            (call_id, name, arguments, *self.echo(arguments)) for call_id, name, arguments in calls
        ]
        if self.style == "text":
            said = "; ".join(
                f"{name}({json.dumps(arguments)})" for _, name, arguments, _, _ in results
            )
            observed = "\n".join(f"Observation: {result}" for _, _, _, result, _ in results)
            self.messages.append({"role": "assistant", "content": f"Calling tools: {said}"})
            self.messages.append({"role": "user", "content": observed})
        elif self.protocol == "responses":
            for call_id, name, arguments, result, _ in results:
                self.messages += [
                    {
                        "type": "function_call",
                        "call_id": call_id,
                        "name": name,
                        "arguments": json.dumps(arguments),
                    },
                    {"type": "function_call_output", "call_id": call_id, "output": result},
                ]
        elif self.protocol == "anthropic":
            uses = [
                {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a, _, _ in results
            ]
            self.messages.append({"role": "assistant", "content": uses})
            blocks = [
                {"type": "tool_result", "tool_use_id": i, "content": r, "is_error": failed}
                for i, _, _, r, failed in results
            ]
            self.messages.append({"role": "user", "content": blocks})
        else:
            asked = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, n, a, _, _ in results
            ]
            self.messages.append({"role": "assistant", "content": None, "tool_calls": asked})
            self.messages += [
                {"role": "tool", "tool_call_id": i, "content": r} for i, _, _, r, _ in results
            ]


ECHO_SCHEMA = {
    "type": "object",
    "properties": {"message": {"type": "string"}},
    "required": ["message"],
}


def echo_agent(protocol: str, style: str, broken: str = "") -> Callable[[CaseContext], EchoAgent]:
    """The factory of one `EchoAgent` variant."""

    def factory(context: CaseContext) -> EchoAgent:
        return EchoAgent(context, protocol=protocol, style=style, broken=broken)

    return factory


echo_chat = echo_agent("chat", "tool")
echo_chat_altered = echo_agent("chat", "tool", "altered")
echo_chat_raises = echo_agent("chat", "tool", "raises")
echo_chat_empty = echo_agent("chat", "tool", "empty")
echo_chat_text = echo_agent("chat", "text")
echo_chat_text_altered = echo_agent("chat", "text", "altered")
echo_chat_text_raises = echo_agent("chat", "text", "raises")
echo_claude = echo_agent("anthropic", "tool")
echo_claude_altered = echo_agent("anthropic", "tool", "altered")
echo_claude_raises = echo_agent("anthropic", "tool", "raises")
echo_claude_text = echo_agent("anthropic", "text")
echo_claude_text_altered = echo_agent("anthropic", "text", "altered")
echo_claude_text_raises = echo_agent("anthropic", "text", "raises")
echo_responses = echo_agent("responses", "tool")
echo_responses_altered = echo_agent("responses", "tool", "altered")
echo_responses_raises = echo_agent("responses", "tool", "raises")
echo_responses_text = echo_agent("responses", "text")
echo_responses_text_altered = echo_agent("responses", "text", "altered")
echo_responses_text_raises = echo_agent("responses", "text", "raises")


class ReactAgent:
    """A ReAct loop with no tool API at all: the model writes `Action:` lines, and the agent
    grows one scratchpad prompt with each `Observation:`."""

    def __init__(self, context: CaseContext, *, broken: str = "") -> None:
        self.openai = OpenAI(base_url=context.base_url, api_key=context.api_key, max_retries=0)
        self.broken = broken

    def close(self) -> None:
        """Close the client's connections."""
        self.openai.close()

    def turn(self, user_input: str) -> str:
        pad = f"Answer with the echo tool.\nQuestion: {user_input}\nThought:"
        for _ in range(5):
            reply = self.openai.chat.completions.create(
                model="m", messages=[{"role": "user", "content": pad}]
            )
            text = reply.choices[0].message.content or ""
            if "Action Input:" not in text:
                return text.removeprefix("Final Answer: ")
            message = text.split("Action Input:", 1)[1].strip()
            result, _ = echo({"message": message}, self.broken)
            pad += f"\n{text}\nObservation: {result}\nThought:"
        raise RuntimeError("too many tool rounds")


def react(context: CaseContext) -> ReactAgent:
    return ReactAgent(context)


def react_altered(context: CaseContext) -> ReactAgent:
    return ReactAgent(context, broken="altered")


def react_raises(context: CaseContext) -> ReactAgent:
    return ReactAgent(context, broken="raises")

"""Agents that describe their tool executions as OpenTelemetry spans, as production agents do.

Each talks to the replay endpoint with the official `openai` client and exports its spans with
the OpenTelemetry SDK's OTLP/HTTP exporter to where its `CaseContext.otel` says. Tool spans
follow the GenAI semantic conventions by hand (`execute_tool`). The broken variants are the
bugs only a real tool boundary shows: the tool gets other arguments than the model asked for,
or it fails while the model is told it succeeded.
"""

from __future__ import annotations

import json
from typing import Any

from openai import OpenAI
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode

from harness import CaseContext
from tests.wire_agents import ECHO_TOOL


class ToolFailed(Exception):
    """The tool's own failure."""


class SpanningAgent:
    """A chat-completions tool loop whose `echo` tool runs inside an `execute_tool` span."""

    def __init__(self, context: CaseContext, *, bug: str | None = None) -> None:
        otel = context.otel
        assert otel is not None, "run with tool spans on"
        self.provider = TracerProvider()  # its own: spans of one case never mix with another's
        exporter = OTLPSpanExporter(endpoint=otel.traces_endpoint, headers=otel.headers)
        self.provider.add_span_processor(BatchSpanProcessor(exporter))
        self.tracer = self.provider.get_tracer("tests.otel_agents")
        self.client = OpenAI(base_url=context.base_url, api_key=context.api_key, max_retries=0)
        self.bug = bug
        self.messages: list[dict[str, Any]] = []

    def turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        for _ in range(10):
            request: dict[str, Any] = {
                "model": "gpt-test",
                "messages": self.messages,
                "tools": [ECHO_TOOL],
            }
            message = self.client.chat.completions.create(**request).choices[0].message
            self.messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                return message.content or ""
            for call in message.tool_calls:
                function = call.function
                arguments = json.loads(function.arguments)
                result = self._execute(call.id, function.name, arguments)
                self.messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        raise RuntimeError("too many tool rounds")

    def _execute(self, call_id: str, name: str, arguments: dict[str, Any]) -> str:
        if self.bug == "wrong_arguments":
            arguments = {**arguments, "message": "something else"}
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": json.dumps(arguments),
        }
        with self.tracer.start_as_current_span(
            f"execute_tool {name}", attributes=attributes, record_exception=False
        ) as span:
            try:
                result = self._echo(arguments)
            except ToolFailed as exc:
                span.set_status(Status(StatusCode.ERROR, str(exc)))
                span.set_attribute("error.type", type(exc).__qualname__)
                return str(arguments.get("message"))  # the bug: the model is told it worked
            span.set_attribute("gen_ai.tool.call.result", result)
            return result

    def _echo(self, arguments: dict[str, Any]) -> str:
        if self.bug == "hidden_failure":
            raise ToolFailed("the echo service is down")
        return str(arguments.get("message", "(empty)"))

    def close(self) -> None:
        self.provider.shutdown()  # flushes the batch, as on process exit


def factory(context: CaseContext) -> SpanningAgent:
    return SpanningAgent(context)


def wrong_arguments_factory(context: CaseContext) -> SpanningAgent:
    return SpanningAgent(context, bug="wrong_arguments")


def hidden_failure_factory(context: CaseContext) -> SpanningAgent:
    return SpanningAgent(context, bug="hidden_failure")


def no_spans_factory(context: CaseContext) -> Any:
    """An honest agent with tracing off: it exports nothing."""
    from tests.wire_agents import OpenAIAgent

    return OpenAIAgent(context.base_url, context.api_key, stream=False)


class PydanticAIAgent:
    """A pydantic-ai agent over the endpoint, its tool spans from pydantic-ai's instrumentation."""

    def __init__(self, context: CaseContext, *, bug: bool = False, content: bool = True) -> None:
        from pydantic_ai import Agent, ModelRetry
        from pydantic_ai.capabilities import Instrumentation
        from pydantic_ai.models.instrumented import InstrumentationSettings
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        otel = context.otel
        assert otel is not None, "run with tool spans on"
        self.provider = TracerProvider()
        exporter = OTLPSpanExporter(endpoint=otel.traces_endpoint, headers=otel.headers)
        self.provider.add_span_processor(BatchSpanProcessor(exporter))
        model = OpenAIChatModel(
            "gpt-test",
            provider=OpenAIProvider(base_url=context.base_url, api_key=context.api_key),
        )
        settings = InstrumentationSettings(tracer_provider=self.provider, include_content=content)
        self.agent = Agent(model, capabilities=[Instrumentation(settings=settings)])

        @self.agent.tool_plain
        def echo(message: str) -> str:
            """Echo back the given message."""
            if bug:  # the bug: the tool fails, and the agent goes on as if it had answered
                raise ModelRetry("the echo service is down")
            return message

        self.history: list[Any] = []

    async def turn(self, user_input: str) -> str:
        result = await self.agent.run(user_input, message_history=self.history)
        self.history = result.all_messages()
        return str(result.output)

    def close(self) -> None:
        self.provider.shutdown()


def pydantic_ai_factory(context: CaseContext) -> PydanticAIAgent:
    return PydanticAIAgent(context)


def pydantic_ai_failing_tool_factory(context: CaseContext) -> PydanticAIAgent:
    return PydanticAIAgent(context, bug=True)


def pydantic_ai_no_content_factory(context: CaseContext) -> PydanticAIAgent:
    """Content capture off: the spans carry no arguments and no results."""
    return PydanticAIAgent(context, content=False)

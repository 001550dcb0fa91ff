"""Agents built with the frameworks teams use, pointed at the replay endpoint unmodified.

- openai-agents with its default model (the Responses API) and a function tool;
- pydantic-ai with an OpenAI chat model and with an Anthropic model, a tool and a structured
  output: the run ends on the `final_result` call, which is never answered.

Each has a broken variant whose tool answers wrongly; its fixtures must fail on it. Each turn
opens its own HTTP client and closes it, so no socket outlives the case's event loop.
"""

from __future__ import annotations

from typing import Any

from harness import CaseContext


def _echo(message: str, broken: bool) -> str:
    return "(broken)" if broken else message


class OpenAIAgentsAgent:
    """An `agents.Agent` with one function tool, run with `Runner.run` (or streamed)."""

    def __init__(self, context: CaseContext, *, stream: bool, broken: bool = False) -> None:
        from agents import Agent, function_tool

        @function_tool
        def echo(message: str) -> str:
            """Echo back the given message."""
            return _echo(message, broken)

        self.agent: Any = Agent(name="echo", instructions="You are helpful.", tools=[echo])
        self.context = context
        self.stream = stream
        self.history: list[Any] = []

    async def turn(self, user_input: str) -> str:
        from agents import RunConfig, Runner
        from agents.models.openai_provider import OpenAIProvider
        from openai import AsyncOpenAI

        request = [*self.history, {"role": "user", "content": user_input}]
        async with AsyncOpenAI(
            base_url=self.context.base_url, api_key=self.context.api_key, max_retries=0
        ) as client:
            config = RunConfig(
                model_provider=OpenAIProvider(openai_client=client), tracing_disabled=True
            )
            if self.stream:
                streamed = Runner.run_streamed(self.agent, request, run_config=config)
                async for _ in streamed.stream_events():
                    pass
                result: Any = streamed
            else:
                result = await Runner.run(self.agent, request, run_config=config)
        self.history = result.to_input_list()
        return str(result.final_output)


def openai_agents_factory(context: CaseContext) -> OpenAIAgentsAgent:
    return OpenAIAgentsAgent(context, stream=False)


def openai_agents_streaming_factory(context: CaseContext) -> OpenAIAgentsAgent:
    return OpenAIAgentsAgent(context, stream=True)


def openai_agents_broken_factory(context: CaseContext) -> OpenAIAgentsAgent:
    return OpenAIAgentsAgent(context, stream=False, broken=True)


class PydanticAIAgent:
    """A pydantic-ai agent with an `echo` tool and a structured output (`final_result`)."""

    def __init__(self, context: CaseContext, *, anthropic: bool, broken: bool = False) -> None:
        self.context = context
        self.anthropic = anthropic
        self.broken = broken

    async def turn(self, user_input: str) -> str:
        from pydantic import BaseModel
        from pydantic_ai import Agent

        class Answer(BaseModel):
            answer: str

        client, model = self._model()
        async with client:
            agent: Any = Agent(model, output_type=Answer, instructions="You are helpful.")
            broken = self.broken

            @agent.tool_plain  # type: ignore[untyped-decorator]
            def echo(message: str) -> str:
                """Echo back the given message."""
                return _echo(message, broken)

            result = await agent.run(user_input)
        return str(result.output.answer)

    def _model(self) -> tuple[Any, Any]:
        context = self.context
        if self.anthropic:
            from anthropic import AsyncAnthropic
            from pydantic_ai.models.anthropic import AnthropicModel
            from pydantic_ai.providers.anthropic import AnthropicProvider

            client: Any = AsyncAnthropic(
                base_url=context.anthropic_base_url, api_key=context.api_key, max_retries=0
            )
            provider: Any = AnthropicProvider(anthropic_client=client)
            return client, AnthropicModel("claude-test", provider=provider)
        from openai import AsyncOpenAI
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        client = AsyncOpenAI(base_url=context.base_url, api_key=context.api_key, max_retries=0)
        provider = OpenAIProvider(openai_client=client)
        return client, OpenAIChatModel("gpt-test", provider=provider)


def pydantic_chat_factory(context: CaseContext) -> PydanticAIAgent:
    return PydanticAIAgent(context, anthropic=False)


def pydantic_anthropic_factory(context: CaseContext) -> PydanticAIAgent:
    return PydanticAIAgent(context, anthropic=True)


def pydantic_chat_broken_factory(context: CaseContext) -> PydanticAIAgent:
    return PydanticAIAgent(context, anthropic=False, broken=True)


def pydantic_anthropic_broken_factory(context: CaseContext) -> PydanticAIAgent:
    return PydanticAIAgent(context, anthropic=True, broken=True)

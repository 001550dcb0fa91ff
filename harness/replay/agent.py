"""The reference agent loop: model call, tool dispatch, repeat until the model answers in text."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Protocol

from harness.errors import AgentError
from harness.messages import Message
from harness.replay.final_text import final_text

if TYPE_CHECKING:
    from harness.messages import ModelProvider
    from harness.replay.tools import ToolRegistry

__all__ = ["MAX_TOOL_ITERATIONS", "Agent", "ReferenceAgent"]

MAX_TOOL_ITERATIONS = 10
"""Model calls allowed in one turn."""


class Agent(Protocol):
    """An agent loop: one user message in, the final reply of that turn out.

    `turn` may be a plain method or an `async def`; the harness awaits it in the second case,
    on one event loop per case.
    """

    def turn(self, user_input: str) -> str | Awaitable[str]:
        """Handle one user message and return (or resolve to) the turn's final text."""
        ...


class ReferenceAgent:
    """A minimal tool-calling loop with a conversation history that spans turns."""

    def __init__(
        self,
        provider: ModelProvider,
        tools: ToolRegistry,
        *,
        max_iterations: int = MAX_TOOL_ITERATIONS,
    ) -> None:
        self._provider = provider
        self._tools = tools
        self._specs = tools.specs()
        self._max_iterations = max_iterations
        self.history: list[Message] = []
        """Every message so far, user, assistant and tool, across turns."""

    def turn(self, user_input: str) -> str:
        """Run one turn to its final text.

        Tool calls run sequentially, in order, and their outputs go back into the history.
        An unknown tool or a tool that raises is a failed call, not an error: the loop goes on.
        The final text loses `<think>` blocks and trailing end-of-message markers, and is
        trimmed (`harness.replay.final_text`).

        Raises:
            AgentError: The input is blank, a reply has neither text nor tool calls, or every
                model call of the turn asked for tools.
        """
        if not user_input.strip():
            raise AgentError("empty user message: refusing to dispatch a blank turn")
        self.history.append(Message(role="user", content=user_input))
        for _ in range(self._max_iterations):
            reply = self._provider.complete(tuple(self.history), self._specs)
            self.history.append(
                Message(role="assistant", content=reply.text, tool_calls=reply.tool_calls)
            )
            if not reply.tool_calls:
                text = final_text(reply.text)
                if not text:
                    raise AgentError("provider completed without final text or tool calls")
                return text
            for call in reply.tool_calls:
                output = self._tools.dispatch(call)
                self.history.append(Message(role="tool", content=output.text, tool_call_id=call.id))
        raise AgentError(f"Agent exceeded maximum tool iterations ({self._max_iterations})")

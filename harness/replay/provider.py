"""`ReplayProvider`: a drop-in model provider that replays a trace's scripted replies.

It implements exactly the `ModelProvider` protocol a real provider would, so the agent loop
cannot tell it is being replayed. Each turn has its own FIFO of scripted replies: a turn that
asks for more replies than scripted, or leaves some unasked, errors the case. Replies never
bleed from one turn into the next.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.errors import ReplayError
from harness.fixtures.format import LlmTrace, TextReply, ToolCallsReply
from harness.messages import Message, ModelReply, ToolCall, Usage

if TYPE_CHECKING:
    from harness.messages import ToolSpec

__all__ = ["ReplayProvider"]


class ReplayProvider:
    """Serves a trace's scripted replies, one FIFO per turn."""

    def __init__(self, trace: LlmTrace) -> None:
        self.name = trace.model_name
        self._queues = [deque(step.response for step in turn.steps) for turn in trace.turns]
        self._turn = 0

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        """Pop the current turn's next scripted reply.

        Raises:
            ReplayError: The turn has no scripted reply left.
        """
        queue = self._queues[self._turn] if self._turn < len(self._queues) else None
        if not queue:
            raise ReplayError(
                f"ReplayProvider({self.name}): turn {self._turn} requested more LLM responses "
                "than the trace provides for that turn"
            )
        return _reply(queue.popleft())

    @property
    def turn(self) -> int:
        """The turn being played (0 first)."""
        return self._turn

    def finish_turn(self, turn: int) -> None:
        """Close `turn` and move on to the next one.

        Raises:
            ReplayError: The agent left scripted replies of that turn unasked.
        """
        left = len(self._queues[turn]) if turn < len(self._queues) else 0
        self._turn = turn + 1
        if left:
            raise ReplayError(
                f"ReplayProvider({self.name}): turn {turn} scripted {left} step(s) the agent "
                "never requested — the trace over-specifies this turn's LLM round-trips"
            )


def _reply(scripted: TextReply | ToolCallsReply) -> ModelReply:
    usage = Usage(input_tokens=scripted.input_tokens, output_tokens=scripted.output_tokens)
    if isinstance(scripted, TextReply):
        return ModelReply(text=scripted.content, usage=usage)
    calls = tuple(
        ToolCall(id=call.id, name=call.name, arguments=call.arguments)
        for call in scripted.tool_calls
    )
    return ModelReply(tool_calls=calls, usage=usage)

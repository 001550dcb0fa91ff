"""Recording what a run did, at the boundaries where it happens.

The tool registry reports each dispatch and `ObservedProvider` reports each model reply the
agent consumed; `RecordingObserver` turns those events into the run's `RunRecord`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from harness.record import RecordedCall, RunRecord

if TYPE_CHECKING:
    from harness.provider import Message, ModelProvider, ModelReply
    from harness.tools import ToolSpec

__all__ = [
    "Event",
    "ModelReplied",
    "ObservedProvider",
    "Observer",
    "RecordedCall",
    "RecordingObserver",
    "ToolDispatched",
]


class ToolDispatched(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A tool call went through the dispatch boundary."""

    call: RecordedCall
    """What was dispatched and what came back."""


class ModelReplied(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The agent consumed one model reply."""

    input_tokens: int
    """Prompt tokens of that reply."""
    output_tokens: int
    """Completion tokens of that reply."""


Event = ToolDispatched | ModelReplied


class Observer(Protocol):
    """Receives every event of a run."""

    def notify(self, event: Event) -> None:
        """Take note of one event."""
        ...


class RecordingObserver:
    """Accumulates a run's events into a `RunRecord`."""

    def __init__(self) -> None:
        self._calls: list[RecordedCall] = []
        self._input_tokens = 0
        self._output_tokens = 0

    def notify(self, event: Event) -> None:
        """Record a dispatch, or add a reply's tokens to the totals."""
        if isinstance(event, ToolDispatched):
            self._calls.append(event.call)
        else:
            self._input_tokens += event.input_tokens
            self._output_tokens += event.output_tokens

    def record(self, final_response: str, requests: tuple[Any, ...] = ()) -> RunRecord:
        """The run as recorded so far, ending with `final_response`."""
        return RunRecord(
            final_response=final_response,
            tool_calls=tuple(self._calls),
            input_tokens=self._input_tokens,
            output_tokens=self._output_tokens,
            requests=requests,
        )


class ObservedProvider:
    """Wraps a provider so every reply it hands the agent is reported to the observer."""

    def __init__(self, provider: ModelProvider, observer: Observer) -> None:
        self._provider = provider
        self._observer = observer

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        """Ask the wrapped provider, then report the reply's usage."""
        reply = self._provider.complete(messages, tools)
        self._observer.notify(
            ModelReplied(
                input_tokens=reply.usage.input_tokens, output_tokens=reply.usage.output_tokens
            )
        )
        return reply

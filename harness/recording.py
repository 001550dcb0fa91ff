"""Recording what a run did, at the boundaries where it happens.

The tool registry reports each dispatch and `ObservedProvider` reports each model reply the
agent consumed; `RecordingObserver` turns those events into the run's `RunRecord`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from harness.messages import ModelReplied, RecordedCall, ToolDispatched

if TYPE_CHECKING:
    from harness.messages import Message, ModelProvider, ModelReply, ToolSpec


from harness.messages import Event, Observer

__all__ = ["FanOut", "ObservedProvider", "RecordedCall", "RecordingObserver", "RunRecord"]


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


class RunRecord(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The outcome of one replayed case.

    `tool_calls` is the single source of truth for dispatches: names, counts and overall
    success are derived from it, never stored beside it.
    """

    final_response: str = ""
    """The text that ended the last turn."""
    tool_calls: tuple[RecordedCall, ...] = ()
    """Every dispatch, every turn, in order, failed and unknown ones included."""
    input_tokens: int = 0
    """Prompt tokens of the replies the agent consumed."""
    output_tokens: int = 0
    """Completion tokens of the replies the agent consumed."""
    requests: tuple[Any, ...] = ()
    """Each request body the agent sent to the replay endpoint (wire runs only)."""

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The name of each call, in dispatch order."""
        return tuple(call.name for call in self.tool_calls)

    @property
    def all_tools_succeeded(self) -> bool:
        """Whether every call succeeded (true when there were none)."""
        return all(call.success for call in self.tool_calls)


def _name(extension: object) -> str:
    return type(extension).__name__


class FanOut:
    """Notifies the recorder, then each extension; remembers the first extension failure."""

    def __init__(self, recorder: Observer, extensions: Sequence[Observer]) -> None:
        self._recorder = recorder
        self._extensions = extensions
        self.failure: str | None = None

    def notify(self, event: Event) -> None:
        """Pass `event` on; an extension that raises is noted, not propagated."""
        self._recorder.notify(event)
        for extension in self._extensions:
            try:
                extension.notify(event)
            except Exception as exc:
                if self.failure is None:
                    self.failure = (
                        f"observer {_name(extension)} failed: {type(exc).__name__}: {exc}"
                    )

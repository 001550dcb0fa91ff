"""Recording at the boundaries: dispatches and consumed replies."""

from __future__ import annotations

from collections.abc import Sequence

from harness.messages import (
    Message,
    ModelReplied,
    ModelReply,
    RecordedCall,
    ToolDispatched,
    ToolSpec,
    Usage,
)
from harness.recording import ObservedProvider, RecordingObserver


class Fixed:
    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        return ModelReply(text="x", usage=Usage(input_tokens=5, output_tokens=2))


def test_recording_observer_accumulates_calls_and_tokens() -> None:
    """Dispatches are kept in order; reply tokens are summed."""
    observer = RecordingObserver()
    first = RecordedCall(name="echo", arguments="{}", result="a", success=True)
    second = RecordedCall(name="nope", arguments="{}", result="b", success=False)
    observer.notify(ToolDispatched(call=first))
    observer.notify(ModelReplied(input_tokens=3, output_tokens=4))
    observer.notify(ToolDispatched(call=second))
    observer.notify(ModelReplied(input_tokens=10, output_tokens=1))
    record = observer.record("final")
    assert record.tool_calls == (first, second)
    assert (record.input_tokens, record.output_tokens) == (13, 5)
    assert record.final_response == "final"


def test_observed_provider_counts_only_replies_handed_over() -> None:
    """Each completion the agent receives is counted once."""
    observer = RecordingObserver()
    provider = ObservedProvider(Fixed(), observer)
    provider.complete([], [])
    provider.complete([], [])
    assert (observer.record("").input_tokens, observer.record("").output_tokens) == (10, 4)

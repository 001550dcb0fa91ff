"""The recorder: boundary events in, one RunRecord out, normalised alike."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import pytest

from harness.messages import (
    NOT_SEEN,
    Message,
    ModelReplied,
    ModelReply,
    RecordedCall,
    ToolDispatched,
    ToolSpec,
    Usage,
)
from harness.recording import ObservedProvider, RecordingObserver, RunRecord
from tests.builders import record


class Fixed:
    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        return ModelReply(text="x", usage=Usage(input_tokens=5, output_tokens=2))


def test_recording_observer_accumulates_calls_and_tokens() -> None:
    """Dispatches are kept in order; reply tokens are summed."""
    observer = RecordingObserver()
    first = RecordedCall(name="echo", arguments="{}", result="a", success=True)
    second = RecordedCall(name="nope", arguments="{}", result="b", success=False)
    observer.notify(ToolDispatched(name="echo", arguments={}, result="a", success=True))
    observer.notify(ModelReplied(input_tokens=3, output_tokens=4))
    observer.notify(ToolDispatched(name="nope", arguments={}, result="b", success=False))
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


def test_both_boundaries_are_normalised_alike() -> None:
    """A dispatch and a wire result go through one normalisation; each keeps where it was seen."""
    observer = RecordingObserver()
    for observed in ("dispatch", "wire"):
        observer.notify(
            ToolDispatched(
                name="echo",
                arguments={"b": 1, "a": "é"},
                result="",
                success=True,
                observed=observed,
            )
        )
    observer.notify(
        ToolDispatched(
            name="<unknown>", arguments=NOT_SEEN, result="x", success=False, observed="wire"
        )
    )
    dispatched, wired, unknown = observer.record("final").tool_calls
    assert (dispatched.arguments, dispatched.result, dispatched.observed) == (
        '{"a":"é","b":1}',
        "(no output)",
        "dispatch",
    )
    assert (wired.arguments, wired.result, wired.observed) == (
        '{"a":"é","b":1}',
        "(no output)",
        "wire",
    )
    assert unknown.arguments == ""


def test_a_wire_record_keeps_only_the_calls_seen_on_the_wire() -> None:
    """When the case was played over the wire, in-process dispatches are not counted twice."""
    observer = RecordingObserver()
    observer.notify(ToolDispatched(name="echo", arguments={}, result="a", success=True))
    observer.notify(
        ToolDispatched(name="echo", arguments={}, result="a", success=True, observed="wire")
    )
    assert [call.observed for call in observer.record("x").tool_calls] == ["dispatch", "wire"]
    assert [call.observed for call in observer.record("x", wire=True).tool_calls] == ["wire"]


def test_names_and_success_derive_from_calls() -> None:
    """tool_names and all_tools_succeeded are views of tool_calls."""
    run = record("r", (("echo", "{}", "a", True), ("nope", "{}", "b", False)))
    assert run.tool_names == ("echo", "nope")
    assert run.all_tools_succeeded is False


def test_no_calls_counts_as_all_succeeded() -> None:
    """A run that dispatched nothing had no failed call."""
    assert record().all_tools_succeeded is True
    assert record().tool_names == ()


def test_a_call_is_timed_on_its_case_clock() -> None:
    """A call's start becomes seconds after the case started; its duration is kept."""
    observer = RecordingObserver(100.0)
    timed = ToolDispatched(
        name="echo", arguments={}, result="a", success=True, started=100.25, duration_s=0.5
    )
    observer.notify(timed)
    (call,) = observer.record("").tool_calls
    assert (call.started_s, call.duration_s) == (0.25, 0.5)


@pytest.mark.parametrize(
    ("started", "duration"),
    [(None, None), (99.0, -1.0), (float("nan"), float("nan")), (100.5, float("inf"))],
    ids=["not-given", "before-the-case", "nan", "infinite"],
)
def test_a_timing_the_boundary_cannot_vouch_for_stays_unknown(
    started: float | None, duration: float | None
) -> None:
    """An untimed event, a start before the case or a duration that is no time: None, not 0."""
    observer = RecordingObserver(100.0)
    observer.notify(
        ToolDispatched(
            name="echo", arguments={}, result="a", success=True, started=started,
            duration_s=duration,
        )
    )  # fmt: skip
    (call,) = observer.record("").tool_calls
    assert call.duration_s is None
    assert call.started_s is None or call.started_s == 0.5


def test_untimed_records_compare_without_their_timing() -> None:
    """Two runs of one case that differ only in timing have equal untimed records."""
    first = RecordedCall(
        name="echo", arguments="{}", result="a", success=True, started_s=0.1, duration_s=0.2
    )
    second = msgspec.structs.replace(first, started_s=0.3, duration_s=None)
    assert first != second
    assert record_of(first).untimed() == record_of(second).untimed()
    assert record_of(first).untimed().tool_calls[0].started_s is None


def record_of(call: RecordedCall) -> RunRecord:
    return RunRecord(final_response="r", tool_calls=(call,))

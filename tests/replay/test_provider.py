"""ReplayProvider: one FIFO per turn, under- and over-specified turns are errors."""

from __future__ import annotations

import msgspec
import pytest

from harness.errors import ReplayError
from harness.fixtures.format import LlmTrace
from harness.replay.provider import ReplayProvider
from tests.builders import calls_step, echo_trace, text_step


def provider(*turns: list[dict[str, object]]) -> ReplayProvider:
    trace = echo_trace(
        model_name="demo",
        turns=[{"user_input": f"turn {i}", "steps": steps} for i, steps in enumerate(turns)],
    )
    return ReplayProvider(msgspec.convert(trace, LlmTrace))


def test_replies_come_in_script_order_with_their_usage() -> None:
    """Steps pop first in, first out, typed as the protocol's ModelReply."""
    replay = provider(
        [calls_step(("echo", {"message": "a"}), input_tokens=7), text_step("done", 3, 4)]
    )
    first = replay.complete([], [])
    assert [call.name for call in first.tool_calls] == ["echo"]
    assert first.tool_calls[0].arguments == {"message": "a"}
    assert first.usage.input_tokens == 7
    second = replay.complete([], [])
    assert (second.text, second.tool_calls) == ("done", ())
    assert (second.usage.input_tokens, second.usage.output_tokens) == (3, 4)
    replay.finish_turn(0)


def test_under_specified_turn_errors() -> None:
    """Asking for more replies than the turn scripts is a ReplayError, with its message."""
    replay = provider([text_step("only")])
    replay.complete([], [])
    with pytest.raises(ReplayError) as caught:
        replay.complete([], [])
    assert str(caught.value) == (
        "ReplayProvider(demo): turn 0 requested more LLM responses than the trace provides "
        "for that turn"
    )


def test_over_specified_turn_errors_on_finish() -> None:
    """Steps left in a finished turn are a ReplayError with the documented message."""
    replay = provider([text_step("one"), text_step("two"), text_step("three")])
    replay.complete([], [])
    with pytest.raises(ReplayError) as caught:
        replay.finish_turn(0)
    assert str(caught.value) == (
        "ReplayProvider(demo): turn 0 scripted 2 step(s) the agent never requested — the trace "
        "over-specifies this turn's LLM round-trips"
    )


def test_steps_never_bleed_into_the_next_turn() -> None:
    """A turn that runs out does not borrow the next turn's replies."""
    replay = provider([text_step("first")], [text_step("second")])
    replay.complete([], [])
    with pytest.raises(ReplayError, match="turn 0 requested more"):
        replay.complete([], [])


def test_next_turn_starts_after_finish() -> None:
    """After finish_turn(i), replies come from turn i + 1."""
    replay = provider([text_step("first")], [text_step("second")])
    replay.complete([], [])
    replay.finish_turn(0)
    assert replay.complete([], []).text == "second"
    replay.finish_turn(1)
    with pytest.raises(ReplayError, match="turn 2 requested more"):
        replay.complete([], [])

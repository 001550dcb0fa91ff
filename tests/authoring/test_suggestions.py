"""Suggested expectations: each quotes what was observed and can fail."""

from __future__ import annotations

import pytest

from harness.authoring.suggestions import argument_checks, distinctive, suggest


def test_a_distinctive_piece_is_in_the_text_and_in_none_of_the_others() -> None:
    """The piece chosen never appears in the user's input or the call's arguments."""
    text = "Paris: Sunny, 21C and a light breeze, forecast from example.com/weather"
    piece = distinctive(text, ["Weather in Paris?", '{"city":"Paris"}'])
    assert piece is not None
    assert piece in text
    assert "Paris" not in piece


def test_a_result_that_only_echoes_its_input_has_no_piece() -> None:
    """An echo's result is in its arguments: no needle could tell a real result from a fake."""
    assert distinctive("hello", ['{"message":"hello"}']) is None


def test_suggestions_pin_calls_results_order_and_response() -> None:
    """Counts, names, one result check per answered call (indexed when repeated), the answer."""
    calls = [
        ("lookup", '{"q":"a"}', "alpha-7731 found", False),
        ("lookup", '{"q":"b"}', "beta-1188 found", False),
        ("final_result", '{"x":1}', None, False),
    ]
    expects = suggest(calls, "Both are in stock.", ["find a and b"])
    assert expects["exact_tool_calls"] == 3
    assert expects["tools_used"] == ["lookup", "final_result"]
    assert expects["tool_results_contain"] == [
        {"tool": "lookup", "needle": "alpha-7731 found", "call_index": 0},
        {"tool": "lookup", "needle": "beta-1188 found", "call_index": 1},
    ]
    assert expects["response_contains"] == ["Both are in stock."]
    assert "tool_arguments_contain" not in expects
    assert "all_tools_succeeded" not in expects


def test_a_run_with_nothing_that_could_fail_is_refused() -> None:
    """No call, and a final text the input already holds: no suggestion could ever fail."""
    with pytest.raises(ValueError, match="no expectation could fail"):
        suggest([], "hi", ["hi"])


def test_a_result_equal_to_its_argument_is_still_quoted() -> None:
    """An echo's result is the agent's own: quoted, so a tool that alters it fails."""
    expects = suggest([("echo", '{"message":"mango"}', "mango", False)], "said mango", ["mango"])
    assert expects["tool_results_contain"] == [{"tool": "echo", "needle": "mango"}]


@pytest.mark.parametrize(
    ("failed", "shows", "expected"),
    [(False, True, True), (True, True, False), (False, False, None)],
    ids=["succeeded", "failed", "not-shown"],
)
def test_success_is_pinned_only_where_the_run_can_show_failure(
    failed: bool, shows: bool, expected: bool | None
) -> None:
    """all_tools_succeeded as observed over Anthropic or spans; never over a silent protocol."""
    calls = [("echo", '{"message":"x"}', "x", failed)]
    expects = suggest(calls, "done", ["go"], shows_failure=shows)
    assert expects.get("all_tools_succeeded") is expected


def test_a_call_without_result_leaves_success_unpinned() -> None:
    """A call that never got a result is not a success: all_tools_succeeded could not pass."""
    calls = [("echo", "{}", "x", False), ("final_result", "{}", None, False)]
    assert "all_tools_succeeded" not in suggest(calls, "ok", ["go"], shows_failure=True)


def test_the_response_needle_is_in_no_earlier_reply() -> None:
    """A stale reply from an earlier turn must not satisfy the last turn's needle."""
    expects = suggest([], "Paris then Oslo", ["go", "more"], earlier=["Paris then"])
    assert expects["response_contains"] == ["Paris then Oslo"]
    with pytest.raises(ValueError, match="no expectation could fail"):
        suggest([], "Paris then", ["x"], earlier=["Paris then"])


def test_tool_spans_arguments_are_quoted_per_call() -> None:
    """The arguments a tool received (from spans) are quoted, indexed when repeated."""
    calls = [("echo", '{"message":"a"}'), ("echo", '{"message":"b"}'), ("add", '{"x":1}')]
    assert argument_checks(calls) == [
        {"tool": "echo", "needle": '{"message":"a"}', "call_index": 0},
        {"tool": "echo", "needle": '{"message":"b"}', "call_index": 1},
        {"tool": "add", "needle": '{"x":1}'},
    ]

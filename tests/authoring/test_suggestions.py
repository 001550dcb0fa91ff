"""Suggested expectations: each quotes what was observed and can fail."""

from __future__ import annotations

import pytest

from harness.authoring.suggestions import distinctive, suggest


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
        ("lookup", '{"q":"a"}', "alpha-7731 found"),
        ("lookup", '{"q":"b"}', "beta-1188 found"),
        ("final_result", '{"x":1}', None),
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

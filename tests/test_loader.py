"""Loading fixtures: decoding into the fixture types, and every rejection rule."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness.errors import FixtureError
from harness.fixtures.format import Case, Expects, TextReply, ToolCallsReply
from harness.fixtures.reading import decode_trace, load_case
from tests.builders import calls_step, echo_trace, text_step
from tests.conftest import WriteFixture


def reject(write_fixture: WriteFixture, content: dict[str, Any] | str | bytes) -> FixtureError:
    path = write_fixture("case.json", content)
    with pytest.raises(FixtureError) as caught:
        load_case(str(path))
    assert caught.value.path == str(path)
    assert str(caught.value).startswith(f"{path}: ")
    return caught.value


def with_expects(**expects: Any) -> dict[str, Any]:
    return echo_trace(expects=expects)


def test_valid_fixture_loads_into_frozen_typed_structs(write_fixture: WriteFixture) -> None:
    """A fixture in the documented format loads with its replies typed by `type`."""
    case = load_case(str(write_fixture("ok.json", echo_trace())))
    assert isinstance(case, Case)
    assert case.name == "single-tool-echo"
    steps = case.trace.turns[0].steps
    assert isinstance(steps[0].response, ToolCallsReply)
    assert steps[0].response.tool_calls[0].arguments == {"message": "hello"}
    assert isinstance(steps[1].response, TextReply)
    assert steps[1].response.output_tokens == 10
    assert case.expects.tools_used == ("echo",)
    with pytest.raises(AttributeError):
        case.trace.model_name = "changed"  # type: ignore[misc]


def test_token_counts_default_to_zero(write_fixture: WriteFixture) -> None:
    """Omitted token counts are 0."""
    trace = echo_trace(
        turns=[{"user_input": "hi", "steps": [{"response": {"type": "text", "content": "yo"}}]}]
    )
    reply = load_case(str(write_fixture("ok.json", trace))).trace.turns[0].steps[0].response
    assert isinstance(reply, TextReply)
    assert (reply.input_tokens, reply.output_tokens) == (0, 0)


def test_unreadable_file_is_rejected(tmp_path: Path) -> None:
    """A fixture that cannot be read is rejected with the OS reason."""
    link = tmp_path / "gone.json"
    os.symlink(tmp_path / "missing-target", link)
    with pytest.raises(FixtureError, match=r"gone\.json: cannot read: No such file or directory"):
        load_case(str(link))


def test_folder_named_like_a_fixture_is_rejected(tmp_path: Path) -> None:
    """A `*.json` entry that is a folder is rejected, not skipped."""
    folder = tmp_path / "dir.json"
    folder.mkdir()
    with pytest.raises(FixtureError, match="is a folder, not a fixture file"):
        load_case(str(folder))


def test_invalid_json_names_line_and_column(write_fixture: WriteFixture) -> None:
    """Malformed JSON is rejected with its line and column."""
    error = reject(write_fixture, '{\n  "model_name": "x",\n  "turns" []\n}')
    assert error.location == "line 3, column 11"
    assert error.reason == "invalid JSON: expected ':'"


def test_truncated_json_is_rejected_at_end_of_file(write_fixture: WriteFixture) -> None:
    """JSON cut short is rejected at its last position."""
    error = reject(write_fixture, '{"model_name": "x",\n"turns": [')
    assert error.location == "line 2, column 11"
    assert error.reason == "invalid JSON: unexpected end of file"


def test_top_level_must_be_an_object(write_fixture: WriteFixture) -> None:
    """A JSON array is not a trace."""
    error = reject(write_fixture, "[]")
    assert (error.location, error.reason) == ("$", "expected an object, got an array")


@pytest.mark.parametrize(
    ("mutate", "location", "hint"),
    [
        pytest.param(
            lambda t: t.update(expect=t.pop("expects")), "$.expect", "expects", id="top-level"
        ),
        pytest.param(
            lambda t: t["expects"].update(response_contain=["x"]),
            "$.expects.response_contain",
            "response_contains",
            id="expects",
        ),
        pytest.param(
            lambda t: t["expects"].update(
                tool_results_contain=[{"tool": "echo", "nedle": "hello"}]
            ),
            "$.expects.tool_results_contain[0].nedle",
            "needle",
            id="payload",
        ),
        pytest.param(
            lambda t: t["turns"][0]["steps"][1]["response"].update(text="hi"),
            "$.turns[0].steps[1].response.text",
            None,
            id="response",
        ),
        pytest.param(
            lambda t: t["turns"][0]["steps"][0]["response"]["tool_calls"][0].update(args={}),
            "$.turns[0].steps[0].response.tool_calls[0].args",
            None,
            id="call",
        ),
    ],
)
def test_unknown_key_is_rejected_at_every_level(
    write_fixture: WriteFixture, mutate: Any, location: str, hint: str | None
) -> None:
    """An unknown or misspelled key anywhere is an error that names where it is."""
    trace = echo_trace()
    mutate(trace)
    error = reject(write_fixture, trace)
    assert error.location == location
    assert error.reason.startswith("unknown key")
    if hint:
        assert f'did you mean "{hint}"' in error.reason


@pytest.mark.parametrize(
    ("mutate", "location"),
    [
        pytest.param(lambda t: t.pop("turns"), "$.turns", id="turns"),
        pytest.param(lambda t: t.pop("model_name"), "$.model_name", id="model_name"),
        pytest.param(
            lambda t: t["turns"][0].pop("user_input"), "$.turns[0].user_input", id="user_input"
        ),
        pytest.param(
            lambda t: t["turns"][0]["steps"][1]["response"].pop("content"),
            "$.turns[0].steps[1].response.content",
            id="content",
        ),
        pytest.param(
            lambda t: t["turns"][0]["steps"][0]["response"]["tool_calls"][0].pop("arguments"),
            "$.turns[0].steps[0].response.tool_calls[0].arguments",
            id="arguments",
        ),
    ],
)
def test_missing_field_is_rejected(write_fixture: WriteFixture, mutate: Any, location: str) -> None:
    """A required key that is absent is named."""
    trace = echo_trace()
    mutate(trace)
    error = reject(write_fixture, trace)
    assert (error.location, error.reason) == (location, "required key is missing")


@pytest.mark.parametrize(
    ("mutate", "location", "reason"),
    [
        pytest.param(
            lambda t: t["turns"][0].update(user_input=5),
            "$.turns[0].user_input",
            "expected a string, got an integer",
            id="string",
        ),
        pytest.param(
            lambda t: t["turns"][0]["steps"][1]["response"].update(input_tokens="3"),
            "$.turns[0].steps[1].response.input_tokens",
            "expected an integer, got a string",
            id="tokens-string",
        ),
        pytest.param(
            lambda t: t["expects"].update(max_tool_calls=True),
            "$.expects.max_tool_calls",
            "expected an integer or null, got true or false",
            id="bool-is-not-int",
        ),
        pytest.param(
            lambda t: t["expects"].update(tools_used="echo"),
            "$.expects.tools_used",
            "expected an array, got a string",
            id="list",
        ),
    ],
)
def test_wrong_type_is_rejected(
    write_fixture: WriteFixture, mutate: Any, location: str, reason: str
) -> None:
    """A value of the wrong JSON type is rejected, never coerced."""
    trace = echo_trace()
    mutate(trace)
    error = reject(write_fixture, trace)
    assert (error.location, error.reason) == (location, reason)


def test_unknown_response_type_is_rejected(write_fixture: WriteFixture) -> None:
    """The reply union only knows `text` and `tool_calls`."""
    trace = echo_trace()
    trace["turns"][0]["steps"][1]["response"]["type"] = "image"
    error = reject(write_fixture, trace)
    assert error.location == "$.turns[0].steps[1].response.type"
    assert error.reason == 'unknown response type "image" (expected "text" or "tool_calls")'


@pytest.mark.parametrize("field", ["input_tokens", "output_tokens"])
def test_negative_token_count_is_rejected(write_fixture: WriteFixture, field: str) -> None:
    """Token counts are integers >= 0."""
    trace = echo_trace()
    trace["turns"][0]["steps"][0]["response"][field] = -1
    error = reject(write_fixture, trace)
    assert error.location == f"$.turns[0].steps[0].response.{field}"
    assert error.reason == "expected an integer >= 0"


def test_empty_turns_are_rejected(write_fixture: WriteFixture) -> None:
    """A trace with no turn would replay nothing."""
    error = reject(write_fixture, echo_trace(turns=[]))
    assert error.location == "$.turns"
    assert "zero times" in error.reason


def test_turn_without_steps_is_rejected(write_fixture: WriteFixture) -> None:
    """Each turn scripts at least one step."""
    turns = [echo_trace()["turns"][0], {"user_input": "and again", "steps": []}]
    error = reject(write_fixture, echo_trace(turns=turns))
    assert (error.location, error.reason) == ("$.turns[1].steps", "the turn scripts no steps")


def test_tool_calls_step_without_call_is_rejected(write_fixture: WriteFixture) -> None:
    """A tool_calls step scripts at least one call."""
    trace = echo_trace()
    trace["turns"][0]["steps"][0]["response"]["tool_calls"] = []
    error = reject(write_fixture, trace)
    assert error.location == "$.turns[0].steps[0].response.tool_calls"
    assert error.reason == "a tool_calls step scripts no call"


@pytest.mark.parametrize("key", ["id", "name"])
def test_call_with_empty_id_or_name_is_rejected(write_fixture: WriteFixture, key: str) -> None:
    """A scripted call needs a non-empty id and name."""
    trace = echo_trace()
    trace["turns"][0]["steps"][0]["response"]["tool_calls"][0][key] = ""
    error = reject(write_fixture, trace)
    assert error.location == f"$.turns[0].steps[0].response.tool_calls[0].{key}"
    assert error.reason == f"empty call {key}"


def test_missing_expects_is_rejected(write_fixture: WriteFixture) -> None:
    """A fixture without `expects` asserts nothing."""
    trace = echo_trace()
    del trace["expects"]
    error = reject(write_fixture, trace)
    assert error.location == "$"
    assert "declares no effective expectation" in error.reason


def test_empty_expects_is_rejected(write_fixture: WriteFixture) -> None:
    """An `expects` block with nothing in it asserts nothing."""
    error = reject(write_fixture, with_expects(tools_used=[], response_contains=[]))
    assert (error.location, error.reason) == ("$.expects", "declares no effective expectation")


@pytest.mark.parametrize(
    "family",
    [
        "response_contains",
        "response_not_contains",
        "response_matches",
        "tools_used",
        "tools_not_used",
    ],
)
def test_zero_length_entry_in_string_family_is_rejected(
    write_fixture: WriteFixture, family: str
) -> None:
    """An empty string is a tautology (or, for tools_not_used, a degenerate check)."""
    error = reject(write_fixture, with_expects(**{family: ["fine", ""]}))
    assert error.location == f"$.expects.{family}[1]"
    assert error.reason == f'declares a zero-length entry in "{family}"'


@pytest.mark.parametrize("family", ["tool_arguments_contain", "tool_results_contain"])
@pytest.mark.parametrize("key", ["tool", "needle"])
def test_payload_entry_with_empty_field_is_rejected(
    write_fixture: WriteFixture, family: str, key: str
) -> None:
    """A payload check needs a tool and a needle."""
    entry = {"tool": "echo", "needle": "hello"} | {key: ""}
    error = reject(write_fixture, with_expects(**{family: [entry]}))
    assert error.location == f"$.expects.{family}[0].{key}"
    assert error.reason == f"empty {key} asserts nothing"


def test_negative_call_index_is_rejected(write_fixture: WriteFixture) -> None:
    """call_index counts from 0."""
    entry = {"tool": "echo", "needle": "hello", "call_index": -1}
    error = reject(write_fixture, with_expects(tool_arguments_contain=[entry]))
    assert error.location == "$.expects.tool_arguments_contain[0].call_index"
    assert error.reason == "expected an integer >= 0"


@pytest.mark.parametrize(
    ("pattern", "why"),
    [("(unclosed", "missing )"), ("(?=look)ahead", "invalid perl operator"), (r"(a)\1", "escape")],
)
def test_regex_that_re2_cannot_compile_is_rejected(
    write_fixture: WriteFixture, pattern: str, why: str
) -> None:
    """response_matches patterns must be valid RE2 (no look-around, no back-references)."""
    error = reject(write_fixture, with_expects(response_matches=["^ok$", pattern]))
    assert error.location == "$.expects.response_matches[1]"
    assert error.reason.startswith("invalid RE2 regex: ")
    assert why in error.reason


def test_min_tool_calls_zero_is_vacuous(write_fixture: WriteFixture) -> None:
    """Every run makes at least 0 calls."""
    error = reject(write_fixture, with_expects(min_tool_calls=0, response_contains=["x"]))
    assert error.location == "$.expects.min_tool_calls"
    assert "vacuous" in error.reason


def test_min_above_max_is_contradictory(write_fixture: WriteFixture) -> None:
    """No run can make at least 3 and at most 2 calls."""
    error = reject(write_fixture, with_expects(min_tool_calls=3, max_tool_calls=2))
    assert error.location == "$.expects.min_tool_calls"
    assert error.reason == "min_tool_calls (3) exceeds max_tool_calls (2): no run can pass"


@pytest.mark.parametrize(
    ("bounds", "window"),
    [
        pytest.param({"min_tool_calls": 2, "exact_tool_calls": 1}, "[2, -]", id="below-min"),
        pytest.param({"max_tool_calls": 2, "exact_tool_calls": 3}, "[-, 2]", id="above-max"),
        pytest.param(
            {"min_tool_calls": 1, "max_tool_calls": 2, "exact_tool_calls": 5},
            "[1, 2]",
            id="outside",
        ),
    ],
)
def test_exact_outside_bounds_is_contradictory(
    write_fixture: WriteFixture, bounds: dict[str, int], window: str
) -> None:
    """exact_tool_calls must lie within [min, max]."""
    error = reject(write_fixture, with_expects(**bounds))
    assert error.location == "$.expects.exact_tool_calls"
    assert error.reason.endswith(f"= {window}")


@pytest.mark.parametrize(
    "expects",
    [
        pytest.param({"max_tool_calls": 0}, id="max-zero-is-a-real-negative-check"),
        pytest.param({"all_tools_succeeded": False}, id="false-is-a-declaration"),
        pytest.param(
            {"min_tool_calls": 1, "max_tool_calls": 3, "exact_tool_calls": 3}, id="exact-in-bounds"
        ),
        pytest.param({"response_matches": [r"^The echo\b"]}, id="re2-word-boundary"),
    ],
)
def test_meaningful_expectations_are_admitted(
    write_fixture: WriteFixture, expects: dict[str, Any]
) -> None:
    """Edge values that still assert something are accepted."""
    case = load_case(str(write_fixture("ok.json", with_expects(**expects))))
    assert not case.expects.is_empty()


def test_blank_user_input_is_admitted_and_left_to_the_agent(write_fixture: WriteFixture) -> None:
    """A blank turn is a run-time error of the agent loop, not a load error."""
    trace = echo_trace(turns=[{"user_input": "  ", "steps": [text_step("hi")]}])
    assert load_case(str(write_fixture("ok.json", trace))).trace.turns[0].user_input == "  "


def test_first_problem_in_document_order_is_reported(write_fixture: WriteFixture) -> None:
    """With several problems, the earliest in the document is the one named."""
    trace = echo_trace(
        turns=[{"user_input": "x", "steps": [calls_step(("", {}))]}],
        expects={"tools_used": [""]},
    )
    error = reject(write_fixture, trace)
    assert error.location == "$.turns[0].steps[0].response.tool_calls[0].name"


def _nested(depth: int) -> Any:
    value: Any = "leaf [[[[ {{{{"  # brackets inside strings are not nesting
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@pytest.mark.parametrize(("depth", "admitted"), [(3, True), (4, False)])
def test_nesting_bound_is_exact(depth: int, admitted: bool) -> None:
    """Arguments nesting exactly max_nesting levels load; one level more is refused."""
    trace = echo_trace()
    trace["turns"][0]["steps"][0] = calls_step(("echo", _nested(depth)))
    trace["expects"] = {"exact_tool_calls": 1}
    data = json.dumps(trace).encode()
    if admitted:
        assert decode_trace("case.json", data, max_nesting=3).model_name == trace["model_name"]
        return
    with pytest.raises(FixtureError) as caught:
        decode_trace("case.json", data, max_nesting=3)
    assert caught.value.location == "$.turns[0].steps[0].response.tool_calls[0].arguments"
    assert caught.value.reason == "nests deeper than 3 levels (max_nesting)"


@pytest.mark.parametrize(
    "declared",
    [{"exact_tool_calls": 0}, {"all_tools_succeeded": False}, {"max_tool_calls": 0}],
)
def test_falsy_declarations_still_count_as_expectations(
    write_fixture: WriteFixture, declared: dict[str, Any]
) -> None:
    """`0` and `false` are declarations: only keys left at their defaults declare nothing."""
    case = load_case(str(write_fixture("case.json", with_expects(**declared))))
    assert not case.expects.is_empty()
    assert Expects().is_empty()

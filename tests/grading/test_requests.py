"""`requests.conversation_contains`: a needle in the conversation a request sends, graded and
admitted fail-closed."""

from __future__ import annotations

from typing import Any

import pytest

from harness.errors import FixtureError
from harness.fixtures.format import RequestExpects, RequestNeedle
from harness.fixtures.reading import load_case
from harness.grading.requests import NO_REQUESTS, grade_requests
from harness.grading.result import GradeResult
from tests.builders import echo_trace
from tests.conftest import WriteFixture

NEEDLE = "Observation: mango"

SHAPES: dict[str, dict[str, Any]] = {
    "chat tool message": {"messages": [{"role": "tool", "tool_call_id": "c1", "content": NEEDLE}]},
    "chat user text": {"messages": [{"role": "user", "content": f"Thought.\n{NEEDLE}"}]},
    "chat assistant text parts": {
        "messages": [{"role": "assistant", "content": [{"type": "text", "text": NEEDLE}]}]
    },
    "responses function_call_output": {
        "input": [{"type": "function_call_output", "call_id": "c1", "output": NEEDLE}]
    },
    "responses input_text": {
        "input": [{"role": "user", "content": [{"type": "input_text", "text": NEEDLE}]}]
    },
    "anthropic tool_result text blocks": {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": NEEDLE}],
                    }
                ],
            }
        ]
    },
    "anthropic tool_result string": {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": NEEDLE}],
            }
        ]
    },
}


def _sent(body: dict[str, Any], turn: int = 0, step: int = 0) -> dict[str, Any]:
    return {"path": "/v1/chat/completions", "status": 200, "body": body, "turn": turn, "step": step}


def _grade(needle: RequestNeedle, requests: list[Any]) -> GradeResult:
    (grade,) = grade_requests(RequestExpects(conversation_contains=(needle,)), requests)
    return grade


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_needle_is_found_in_every_message_shape(shape: str) -> None:
    """User, assistant and tool messages, text parts and result blocks of each protocol."""
    grade = _grade(RequestNeedle(needle=NEEDLE), [_sent(SHAPES[shape])])
    assert (grade.passed, grade.detail) == (True, "in request 0 (turn 0, step 0)")
    assert grade.check == 'requests.conversation_contains("Observation: mango", any request)'


def test_an_altered_observation_fails_and_quotes_what_was_sent() -> None:
    """The needle absent: the check fails, quoting the request's last messages."""
    body = {"messages": [{"role": "user", "content": "Observation: papaya"}]}
    grade = _grade(RequestNeedle(needle=NEEDLE), [_sent(body)])
    assert not grade.passed
    assert grade.detail == (
        "not in the conversation of 1 request(s); request 0 (turn 0, step 0) ends with: "
        '["Observation: papaya"]'
    )


def test_keys_that_name_a_part_never_match() -> None:
    """A role, a type or an id is not what the conversation says."""
    body = {"messages": [{"role": "tool", "tool_call_id": "mango-1", "content": "x"}]}
    assert not _grade(RequestNeedle(needle="mango-1"), [_sent(body)]).passed
    assert not _grade(RequestNeedle(needle="tool"), [_sent(body)]).passed


def test_a_named_request_is_the_only_one_looked_in() -> None:
    """turn and step pick one request: the needle in another does not pass."""
    first = _sent({"messages": [{"role": "user", "content": "go"}]}, 0, 0)
    second = _sent({"messages": [{"role": "user", "content": NEEDLE}]}, 0, 1)
    assert _grade(RequestNeedle(needle=NEEDLE, turn=0, step=1), [first, second]).passed
    missed = _grade(RequestNeedle(needle=NEEDLE, turn=0, step=0), [first, second])
    assert not missed.passed
    assert missed.check.endswith("turn 0, step 0)")


def test_a_request_never_sent_fails() -> None:
    """A named request the agent never made fails, saying how many it made."""
    grade = _grade(RequestNeedle(needle=NEEDLE, turn=1), [_sent(SHAPES["chat user text"])])
    assert not grade.passed
    assert grade.detail == "no request was made for turn 1: the agent sent 1 request(s)"


def test_an_unanswered_request_is_not_looked_in() -> None:
    """A request answered with an error status holds no conversation the model got."""
    refused = {"path": "/v1/chat/completions", "status": 400, "body": SHAPES["chat user text"]}
    grade = _grade(RequestNeedle(needle=NEEDLE), [refused])
    assert (grade.passed, grade.detail) == (False, NO_REQUESTS)


def _trace(entry: dict[str, Any]) -> dict[str, Any]:
    return echo_trace(expects={"requests": {"conversation_contains": [entry]}})


@pytest.mark.parametrize(
    ("entry", "where", "reason"),
    [
        ({"needle": ""}, "$.expects.requests.conversation_contains[0].needle", "empty needle"),
        ({"needle": "  "}, "$.expects.requests.conversation_contains[0].needle", "blank needle"),
        (
            {"needle": "x", "role": "user"},
            "$.expects.requests.conversation_contains[0].role",
            "unknown",
        ),
        ({"needle": "x", "step": 0}, "$.expects.requests.conversation_contains[0].step", "turn"),
        ({"needle": "x", "turn": 1}, "$.expects.requests.conversation_contains[0].turn", "past"),
        (
            {"needle": "x", "turn": 0, "step": 2},
            "$.expects.requests.conversation_contains[0].step",
            "past",
        ),
        ({"needle": "x", "turn": -1}, "$.expects.requests.conversation_contains[0].turn", ">= 0"),
    ],
    ids=["empty", "blank", "unknown-key", "step-alone", "turn-past", "step-past", "negative"],
)
def test_a_needle_that_cannot_be_graded_is_refused_at_load(
    write_fixture: WriteFixture, entry: dict[str, Any], where: str, reason: str
) -> None:
    """Empty or blank needles, unknown keys and requests past the script: one line, the path."""
    path = write_fixture("case.json", _trace(entry))
    with pytest.raises(FixtureError) as caught:
        load_case(str(path))
    assert caught.value.location == where
    assert reason in caught.value.reason
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(str(path))


def test_a_needle_in_a_scripted_request_is_admitted(write_fixture: WriteFixture) -> None:
    """turn 0, step 1 names the second of the echo trace's two steps: admitted."""
    case = load_case(str(write_fixture("ok.json", _trace({"needle": "x", "turn": 0, "step": 1}))))
    assert case.expects.requests is not None
    assert case.expects.requests.conversation_contains == (
        RequestNeedle(needle="x", turn=0, step=1),
    )

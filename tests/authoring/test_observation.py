"""Results that reached the model as text: found in the requests, quoted, and altered."""

from __future__ import annotations

from typing import Any

import msgspec

from harness.authoring.observation import ALTERED, altered, needle, observations
from harness.fixtures.format import Case, LlmTrace
from harness.grading.requests import conversation
from harness.messages import RecordedCall
from harness.recording import RunRecord
from tests.builders import calls_step, echo_trace, text_step

PROMPT = "Answer with tools.\nQuestion: echo mango\nThought:"
ACTION = "Action: echo\nAction Input: mango"


def _case(steps: list[dict[str, Any]]) -> Case:
    turns = [{"user_input": "echo mango", "steps": steps}]
    trace = msgspec.convert(echo_trace(turns=turns), LlmTrace)
    return Case(source="c.json", trace=trace)


def _sent(step: int, *messages: dict[str, Any]) -> dict[str, Any]:
    body = {"messages": list(messages)}
    return {"path": "/v1/chat/completions", "status": 200, "body": body, "turn": 0, "step": step}


REACT = _case([text_step(ACTION), text_step("Final Answer: mango")])
SCRATCHPAD = RunRecord(
    final_response="Final Answer: mango",
    requests=(
        _sent(0, {"role": "user", "content": PROMPT}),
        _sent(1, {"role": "user", "content": f"{PROMPT}\n{ACTION}\nObservation: mango\nThought:"}),
    ),
)


def test_a_growing_scratchpad_yields_its_observation_line() -> None:
    """Only the line that is in no earlier request and no script: the observation."""
    (found,) = observations(REACT, SCRATCHPAD)
    assert (found.turn, found.step, found.lines) == (0, 1, ("Observation: mango",))
    assert needle(found) == "Observation: mango"


def test_the_mutant_alters_only_the_agent_s_own_lines() -> None:
    """The template and the scripted action stay; the observation is gone from the request."""
    (found,) = observations(REACT, SCRATCHPAD)
    (text,) = conversation(altered(SCRATCHPAD, found).requests[1]["body"])
    assert text == f"{PROMPT}\n{ACTION}\n{ALTERED}\nThought:"
    assert altered(SCRATCHPAD, found).requests[0] == SCRATCHPAD.requests[0]


def test_results_sent_as_tool_messages_are_no_observation() -> None:
    """A call that got its result over the wire travels in a tool message, not as text."""
    case = _case([calls_step(("echo", {"message": "mango"})), text_step("said mango")])
    call = RecordedCall(name="echo", arguments="{}", result="mango", success=True, observed="wire")
    run = RunRecord(
        final_response="said mango",
        tool_calls=(call,),
        requests=(
            _sent(0, {"role": "user", "content": "echo mango"}),
            _sent(1, {"role": "tool", "tool_call_id": "call_1", "content": "Observation: mango"}),
        ),
    )
    assert observations(case, run) == []
    unanswered = msgspec.structs.replace(call, result=None, success=False)
    assert [
        o.lines for o in observations(case, msgspec.structs.replace(run, tool_calls=(unanswered,)))
    ] == [("Observation: mango",)]

"""`harness check`'s hints can be followed: each names an expectation the agent's mode grades
and its run passes, and following it kills the mutant it was given for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness._cli.main import main
from harness.authoring.hints import mutant_hints
from tests.builders import calls_step, echo_trace, record, text_step
from tests.conftest import WriteFixture

TEXT_AGENT = "tests.record_agents:echo_chat_text"
TOOL_AGENT = "tests.record_agents:echo_chat"


def _check(suite: Path, agent: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status = main(["check", "--suite", str(suite), "--agent", agent, "--format", "json"])
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    report["status"] = status
    return report


def _weak(write_fixture: WriteFixture) -> Path:
    expects = {"response_contains": ["tool said: hello"], "exact_tool_calls": 1}
    return write_fixture("w.json", echo_trace(kind="positive", expects=expects))


def test_a_text_observation_agent_is_told_to_check_the_request(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """No tool_results_contain (no result message exists): the request check, quoted."""
    path = _weak(write_fixture)
    (row,) = _check(path.parent, TEXT_AGENT, capsys)["strengths"]
    assert row["survivors"] == ["alter_sent_result(turn 0, step 1)"]
    entry = {"needle": "Observation: hello", "turn": 0, "step": 1}
    assert row["hints"] == [
        f"altered text result survives: add requests.conversation_contains: [{json.dumps(entry)}]"
    ]
    fixed = json.loads(path.read_text())
    fixed["expects"]["requests"] = {"conversation_contains": [entry]}
    path.write_text(json.dumps(fixed))
    report = _check(path.parent, TEXT_AGENT, capsys)
    assert (report["strengths"][0]["survivors"], report["status"]) == ([], 0)


def test_a_tool_message_agent_is_told_to_quote_its_result(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """The result equals the argument and is still quoted; following the hint kills it."""
    path = _weak(write_fixture)
    (row,) = _check(path.parent, TOOL_AGENT, capsys)["strengths"]
    assert row["hints"] == [
        'altered result survives: add tool_results_contain: [{"tool": "echo", "needle": "hello"}]'
    ]
    fixed = json.loads(path.read_text())
    fixed["expects"]["tool_results_contain"] = [{"tool": "echo", "needle": "hello"}]
    path.write_text(json.dumps(fixed))
    report = _check(path.parent, TOOL_AGENT, capsys)
    assert (report["strengths"][0]["survivors"], report["status"]) == ([], 0)


def test_a_repeated_tool_gets_its_call_index_in_results_over_the_wire() -> None:
    """Swaps are pinned through results (wire mode refuses call_index in arguments)."""
    run = record("a b", (("echo", "{}", "a", True), ("echo", "{}", "b", True)))
    calls = tuple(msgspec.structs.replace(call, observed="wire") for call in run.tool_calls)
    wire = msgspec.structs.replace(run, tool_calls=calls)
    hints = mutant_hints(["swap_calls(0, 1)", "alter_result(1)"], wire)
    assert hints == (
        "swapped calls survive: pin each call of a tool with call_index in tool_results_contain",
        'altered result survives: add tool_results_contain: [{"tool": "echo", "needle": "b", '
        '"call_index": 1}]',
    )


def test_success_is_not_suggested_when_a_call_got_no_result() -> None:
    """A final-answer call never gets a result: all_tools_succeeded could never pass."""
    run = record("ok", (("echo", "{}", "a", True), ("final_result", "{}", None, False)))  # type: ignore[arg-type]
    (hint,) = mutant_hints(["flip_success(0)"], run)
    assert "all_tools_succeeded" in hint
    assert "add all_tools_succeeded" not in hint


def test_an_unanswered_wire_call_gets_no_result_mutant(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A call the wire saw no result for (it went back as text) gets no result mutant."""
    steps = [calls_step(("echo", {"message": "hello"})), text_step("ok")]
    trace = echo_trace(
        kind="positive",
        turns=[{"user_input": "go", "steps": steps}],
        expects={"response_contains": ["ok"], "exact_tool_calls": 1},
    )
    path = write_fixture("t.json", trace)
    (row,) = _check(path.parent, TEXT_AGENT, capsys)["strengths"]
    assert not [label for label in row["survivors"] if label.startswith(("alter_result", "flip"))]

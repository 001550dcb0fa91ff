"""Carryover: a reused agent's request that carries an earlier case's conversation is caught."""

from __future__ import annotations

from typing import Any

import pytest

from harness.replay.anthropic import ANTHROPIC
from harness.replay.carryover import Carryover, CaseGuard, user_texts
from harness.replay.chat_completions import CHAT_COMPLETIONS
from harness.replay.responses import RESPONSES


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def tool(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def played(carryover: Carryover, name: str, inputs: list[str], *results: tuple[str, str]) -> None:
    """A case that sent its inputs and, on its calls, `results`, then ended."""
    guard = carryover.guard(name, inputs, lambda: len(inputs) - 1)
    messages = [user(text) for text in inputs] + [tool(*result) for result in results]
    assert guard.check(CHAT_COMPLETIONS, {"messages": messages}, [r[0] for r in results]) is None
    guard.close()


def guard_after(inputs: list[str], *results: tuple[str, str]) -> CaseGuard:
    """The guard of case `now`, played after case `before` sent `inputs` and `results`."""
    carryover = Carryover()
    played(carryover, "before", inputs, *results)
    return carryover.guard("now", ["Echo now"], lambda: 0)


def test_a_request_with_an_earlier_cases_input_names_that_case() -> None:
    """The kept conversation of `before` errors `now`, by name."""
    body = {"messages": [user("Echo before"), user("Echo now")]}
    problem = guard_after(["Echo before"]).check(CHAT_COMPLETIONS, body, [])
    assert problem is not None
    assert problem.startswith("the agent kept the conversation of case 'before'")


def test_a_fresh_conversation_passes() -> None:
    """A request with only the current case's input is no carryover."""
    body = {"messages": [{"role": "system", "content": "Be brief."}, user("Echo now")]}
    assert guard_after(["Echo before"]).check(CHAT_COMPLETIONS, body, []) is None


def test_two_cases_sharing_an_input_are_no_carryover() -> None:
    """The same input in two cases matches the current case first."""
    carryover = Carryover()
    played(carryover, "before", ["Echo hello"])
    guard = carryover.guard("now", ["Echo hello"], lambda: 0)
    assert guard.check(CHAT_COMPLETIONS, {"messages": [user("Echo hello")]}, []) is None
    twice = {"messages": [user("Echo hello"), user("Echo hello")]}
    assert guard.check(CHAT_COMPLETIONS, twice, []) is not None


def test_a_tool_result_of_an_earlier_case_is_carryover() -> None:
    """A result under an id this case never served, as an earlier case sent it, is caught."""
    guard = guard_after(["Echo before"], ("call_1", "before"))
    body = {"messages": [user("Echo now"), tool("call_1", "before")]}
    assert guard.check(CHAT_COMPLETIONS, body, []) is not None


def test_a_shared_call_id_answered_by_this_case_is_no_carryover() -> None:
    """`call_1` in both cases: the current case's own result is matched to its own call."""
    guard = guard_after(["Echo before"], ("call_1", "same"))
    body = {"messages": [user("Echo now"), tool("call_1", "same")]}
    assert guard.check(CHAT_COMPLETIONS, body, ["call_1"]) is None


def test_an_input_put_in_a_prompt_template_is_found() -> None:
    """A long earlier input inside a framework's template message still names its case."""
    body = {"messages": [user("New task:\nEcho the word before"), user("Echo now")]}
    assert guard_after(["Echo the word before"]).check(CHAT_COMPLETIONS, body, []) is not None


@pytest.mark.parametrize(
    ("body", "texts"),
    [
        ({"messages": [user("a"), {"role": "assistant", "content": "b"}]}, ["a"]),
        ({"input": "a"}, ["a"]),
        ({"input": [{"role": "user", "content": [{"type": "input_text", "text": "a"}]}]}, ["a"]),
        (
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}]}]},
            ["a"],
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_result", "content": "r"}]}]},
            [],
        ),
    ],
    ids=["chat", "responses-string", "responses-items", "anthropic-text", "anthropic-result"],
)
def test_user_texts_reads_each_protocol(body: dict[str, Any], texts: list[str]) -> None:
    """The user messages' text, in Chat Completions, Responses and Anthropic shapes."""
    assert list(user_texts(body)) == texts


def test_each_protocols_tool_results_are_checked() -> None:
    """Responses and Anthropic results of an earlier case are caught as Chat's are."""
    guard = guard_after(["Echo before"], ("call_1", "before"))
    responses = {
        "input": [
            user("Echo now"),
            {"type": "function_call_output", "call_id": "call_1", "output": "before"},
        ]
    }
    result = {"type": "tool_result", "tool_use_id": "call_1", "content": "before"}
    anthropic = {"messages": [user("Echo now"), {"role": "user", "content": [result]}]}
    assert guard.check(RESPONSES, responses, []) is not None
    assert guard.check(ANTHROPIC, anthropic, []) is not None

"""How to fix what `harness check` finds: the expectation that would kill each surviving
mutant kind, and what a negative case checked only by `*_not_*` expectations lacks."""

from __future__ import annotations

import json
from collections.abc import Sequence

from harness.authoring.observation import needle, observations
from harness.authoring.suggestions import distinctive
from harness.fixtures.format import Case
from harness.messages import RecordedCall
from harness.recording import RunRecord
from harness.text import quote

__all__ = ["mutant_hints", "negative_hint", "uncaught"]

_NOT_FIELDS = ("response_not_contains", "tools_not_used")


def mutant_hints(
    survivors: Sequence[str], record: RunRecord, case: Case | None = None
) -> tuple[str, ...]:
    """One hint per surviving mutant kind, in the order the kinds first survive.

    Every hint can be followed: it names an expectation the agent's mode grades and the run
    passes, quoting what the run did where it can; where none exists it says why.

    Args:
        survivors: The surviving mutants' labels (`duplicate_call(0)`, `blank_response`).
        record: The real run's record, for the counts, names and texts the hints quote.
        case: The case, for the observations a wire agent sent as text.
    """
    first: dict[str, str] = {}
    for label in survivors:
        first.setdefault(label.partition("(")[0], label)
    return tuple(_hint(kind, label, record, case) for kind, label in first.items())


def _hint(kind: str, label: str, record: RunRecord, case: Case | None) -> str:
    calls = record.tool_calls
    count = len(calls)
    index = label.partition("(")[2].split(",")[0].rstrip(")")
    at = int(index) if index.isdigit() and int(index) < count else 0
    tool = quote(calls[at].name) if calls else '"<tool>"'
    wire = any(call.observed == "wire" for call in calls)
    if kind in ("drop_call", "duplicate_call"):
        what = "dropped" if kind == "drop_call" else "duplicate"
        return f"{what} call survives: add exact_tool_calls: {count}"
    if kind == "swap_calls":
        family = "tool_results_contain" if wire else "tool_arguments_contain"
        return f"swapped calls survive: pin each call of a tool with call_index in {family}"
    if kind == "alter_arguments":
        return (
            "altered arguments survive: add tool_arguments_contain: "
            f'[{{"tool": {tool}, "needle": "<text of its arguments>"}}]'
        )
    if kind == "alter_result":
        return f"altered result survives: add tool_results_contain: [{_result_entry(calls, at)}]"
    if kind == "flip_success":
        if any(call.result is None for call in calls):
            return f"flipped success survives: {uncaught(label)}"
        if all(call.success for call in calls):
            return "flipped success survives: add all_tools_succeeded: true"
        return "flipped success survives: add all_tools_succeeded: false"
    if kind == "alter_sent_result":
        return f"altered text result survives: {_sent_hint(label, record, case)}"
    if kind == "blank_response":
        piece = distinctive(record.final_response, _inputs(case))
        text = quote(piece) if piece else '"<text of the final reply>"'
        return f"blank response survives: add response_contains: [{text}]"
    if kind == "earlier_response":
        return (
            "stale response survives: add response_contains with text only the last turn's "
            "reply has"
        )
    return f"{kind} survives"


def _result_entry(calls: Sequence[RecordedCall], at: int) -> str:
    """A `tool_results_contain` entry quoting call `at`'s result (indexed when repeated)."""
    if not calls:
        return '{"tool": "<tool>", "needle": "<text of its result>"}'
    call = calls[at]
    piece = distinctive(call.result or "", ())
    entry = f'{{"tool": {quote(call.name)}, "needle": {quote(piece or "<text of its result>")}'
    same = [i for i, other in enumerate(calls) if other.name == call.name]
    if len(same) > 1:
        entry += f', "call_index": {same.index(at)}'
    return entry + "}"


def _sent_hint(label: str, record: RunRecord, case: Case | None) -> str:
    found = [] if case is None else observations(case, record)
    for observation in found:
        if label == f"alter_sent_result(turn {observation.turn}, step {observation.step})":
            entry = {"needle": needle(observation), "turn": observation.turn}
            entry["step"] = observation.step
            return "add requests.conversation_contains: [" + json.dumps(entry) + "]"
    return (
        'add requests.conversation_contains: [{"needle": "<what the agent sent after the '
        'call>", "turn": T, "step": S}]'
    )


def _inputs(case: Case | None) -> list[str]:
    return [] if case is None else [turn.user_input for turn in case.trace.turns]


def negative_hint(case: Case) -> str | None:
    """For a `kind: negative` case whose every check is a `*_not_*` one: what it lacks.

    Such a case passes for an agent that does nothing at all, so it cannot tell the behaviour
    it forbids from a broken agent.
    """
    if case.trace.kind != "negative":
        return None
    expects = case.expects
    declared = {
        field
        for field in expects.__struct_fields__
        if getattr(expects, field) not in ((), None, {})
    }
    if not declared or not declared <= set(_NOT_FIELDS):
        return None
    return (
        "a negative case checked only by *_not_* expectations passes for an agent that does "
        "nothing: add what it must do instead (response_contains, tools_used or "
        "exact_tool_calls)"
    )


def uncaught(label: str) -> str:
    """Why no expectation the run supports can kill the surviving mutant `label`, for a
    recorded fixture, whose suggestions already quote everything the run showed."""
    kind = label.partition("(")[0]
    if kind == "alter_result":
        return "its result is empty: there is no text to quote, so an altered one looks the same"
    if kind == "swap_calls":
        return "the swapped calls sent the same result: no call_index needle tells them apart"
    if kind == "flip_success":
        return (
            "the run's calls mix failures with calls that got no result or succeeded, so "
            "all_tools_succeeded cannot say which one failed"
        )
    if kind in ("blank_response", "earlier_response"):
        return (
            "the final reply says nothing that the user's inputs or an earlier turn's reply "
            "do not: no response_contains needle tells it apart"
        )
    if kind == "alter_arguments":
        return "tool_arguments_contain would grade the scripted arguments against themselves"
    return "no expectation observes what it changes"

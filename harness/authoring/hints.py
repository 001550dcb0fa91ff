"""How to fix what `harness check` finds: the expectation that would kill each surviving
mutant kind, and what a negative case checked only by `*_not_*` expectations lacks."""

from __future__ import annotations

from collections.abc import Sequence

from harness.fixtures.format import Case
from harness.recording import RunRecord
from harness.text import quote

__all__ = ["mutant_hints", "negative_hint", "uncaught"]

_NOT_FIELDS = ("response_not_contains", "tools_not_used")


def mutant_hints(survivors: Sequence[str], record: RunRecord) -> tuple[str, ...]:
    """One hint per surviving mutant kind, in the order the kinds first survive.

    Args:
        survivors: The surviving mutants' labels (`duplicate_call(0)`, `blank_response`).
        record: The real run's record, for the counts and names the hints quote.
    """
    first: dict[str, str] = {}
    for label in survivors:
        kind, _, rest = label.partition("(")
        first.setdefault(kind, rest.split(",")[0].rstrip(")"))
    return tuple(_hint(kind, record, index) for kind, index in first.items())


def _hint(kind: str, record: RunRecord, index: str) -> str:
    calls = record.tool_calls
    count = len(calls)
    at = int(index) if index.isdigit() and int(index) < count else 0
    tool = quote(calls[at].name) if calls else '"<tool>"'
    if kind == "drop_call":
        return f"dropped call survives: add exact_tool_calls: {count}"
    if kind == "duplicate_call":
        return f"duplicate call survives: add exact_tool_calls: {count}"
    if kind == "swap_calls":
        return (
            "swapped calls survive: pin each call of a tool with call_index in "
            "tool_arguments_contain"
        )
    if kind == "alter_arguments":
        return (
            "altered arguments survive: add tool_arguments_contain: "
            f'[{{"tool": {tool}, "needle": "<text of its arguments>"}}]'
        )
    if kind == "alter_result":
        return (
            "altered result survives: add tool_results_contain: "
            f'[{{"tool": {tool}, "needle": "<text of its result>"}}]'
        )
    if kind == "flip_success":
        if all(call.success for call in calls):
            return "flipped success survives: add all_tools_succeeded: true"
        return (
            "flipped success survives: the run has a failed call; assert its error text with "
            "tool_results_contain and call_index"
        )
    if kind == "blank_response":
        return 'blank response survives: add response_contains: ["<text of the final reply>"]'
    if kind == "earlier_response":
        return (
            "stale response survives: add response_contains with text only the last turn's "
            "reply has"
        )
    return f"{kind} survives"


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

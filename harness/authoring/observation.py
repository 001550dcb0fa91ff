"""Tool results that reached the model as text, found in what a wire agent sent.

Some agents send a tool's result back not as a tool-result message but as text: a ReAct loop
appends `Observation: ...` to a user or assistant message, and some frameworks answer a
native tool call the same way. No protocol ties that text to a call, so the recorded call has
no result and `tool_results_contain` cannot see it; `requests.conversation_contains` can.

A request *carries an observation* when it asks for a step that follows, in the same turn,
either a text reply the agent went on from or tool calls none of which got a result over the
wire. What it carries is each line, in the messages new or changed since the agent's
previous request, that is the agent's own: found in neither that previous request nor the
user's inputs nor the scripted replies (so a scratchpad prompt that grows by an
`Observation:` line yields that line). `harness record` quotes it; the mutant
`alter_sent_result` alters those lines, in that request and every later one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from harness.fixtures.format import Case, ToolCallsReply
from harness.grading.requests import (
    CONVERSATION_KEYS,
    STRUCTURE_KEYS,
    answered,
    conversation,
    request_body,
)
from harness.recording import RunRecord

__all__ = ["Observation", "altered", "needle", "observations"]

ALTERED = "\u2205"
"""What altered text becomes (as the other mutants' payloads do)."""
_LONGEST = 300


class Observation(msgspec.Struct, frozen=True, kw_only=True):
    """What the agent sent the model after a call whose result travelled as text."""

    turn: int
    """The turn of the request that carries it."""
    step: int
    """The step that request asks for."""
    index: int
    """Its place in `RunRecord.requests`."""
    lines: tuple[str, ...]
    """The agent's own lines (stripped) in the messages new in it, in order."""
    last: tuple[str, ...]
    """Those of them in the last message that has any (a result comes after its call)."""


def observations(case: Case, record: RunRecord) -> list[Observation]:
    """Each request of `record` that carries an observation, in order."""
    scripted = _scripted(case)
    found: list[Observation] = []
    previous: list[str] = []
    for index, entry in enumerate(record.requests):
        if not answered(entry):
            continue
        pieces = conversation(request_body(entry))
        turn, step = _position(entry)
        if turn is not None and step and _after_text(case, record, turn, step):
            before = "\n".join(previous)
            per_piece = [_own(piece, before, scripted) for piece in pieces if piece not in previous]
            lines = tuple(dict.fromkeys(line for own in per_piece for line in own))
            if lines:
                last = next(own for own in reversed(per_piece) if own)
                found.append(
                    Observation(turn=turn, step=step, index=index, lines=lines, last=tuple(last))
                )
        previous = pieces
    return found


def _own(piece: str, before: str, scripted: Sequence[str]) -> list[str]:
    """The lines of `piece` that are the agent's own: in no earlier request, no script."""
    return [
        line
        for line in (raw.strip() for raw in piece.splitlines())
        if line and line not in before and not any(line in text for text in scripted)
    ]


def needle(observation: Observation) -> str:
    """What to quote of an observation: the longest of its last message's own lines, cut to
    a length a fixture can hold."""
    return max(observation.last, key=len)[:_LONGEST]


def altered(record: RunRecord, observation: Observation) -> RunRecord:
    """`record` with the observation's lines altered in its request and every later one."""
    requests = [
        entry
        if index < observation.index or not answered(entry)
        else _alter(entry, observation.lines)
        for index, entry in enumerate(record.requests)
    ]
    return msgspec.structs.replace(record, requests=tuple(requests))


def _alter(entry: Any, lines: Sequence[str]) -> Any:
    body = dict(request_body(entry))
    for key in CONVERSATION_KEYS:
        if key in body:
            body[key] = _replace(body[key], lines)
    if isinstance(entry, dict) and "status" in entry:
        return {**entry, "body": body}
    return body


def _replace(value: Any, lines: Sequence[str]) -> Any:
    """`value` with each of `lines` altered wherever it says them (not in roles, types, ids)."""
    if isinstance(value, str):
        for line in lines:
            value = value.replace(line, ALTERED)
        return value
    if isinstance(value, dict):
        return {k: v if k in STRUCTURE_KEYS else _replace(v, lines) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(item, lines) for item in value]
    return value


def _position(entry: Any) -> tuple[int | None, int | None]:
    if not isinstance(entry, dict):
        return None, None
    turn, step = entry.get("turn"), entry.get("step")
    return (turn, step) if isinstance(turn, int) and isinstance(step, int) else (None, None)


def _after_text(case: Case, record: RunRecord, turn: int, step: int) -> bool:
    """Whether the reply before (turn, step) was text the agent went on from, or calls whose
    results never came back over the wire."""
    turns = case.trace.turns
    if turn >= len(turns) or step > len(turns[turn].steps):
        return False
    reply = turns[turn].steps[step - 1].response
    if not isinstance(reply, ToolCallsReply):
        return True
    first = sum(len(calls) for calls in _calls_before(case, turn, step - 1))
    answered_calls = record.tool_calls[first : first + len(reply.tool_calls)]
    return len(answered_calls) == len(reply.tool_calls) and all(
        call.result is None and call.observed == "wire" for call in answered_calls
    )


def _calls_before(case: Case, turn: int, step: int) -> Iterator[Sequence[Any]]:
    for t, scripted_turn in enumerate(case.trace.turns[: turn + 1]):
        steps = scripted_turn.steps if t < turn else scripted_turn.steps[:step]
        for scripted in steps:
            if isinstance(scripted.response, ToolCallsReply):
                yield scripted.response.tool_calls


def _scripted(case: Case) -> list[str]:
    """What the fixture itself says: user inputs, scripted texts, scripted arguments."""
    said: list[str] = []
    for turn in case.trace.turns:
        said.append(turn.user_input)
        for step in turn.steps:
            reply = step.response
            if isinstance(reply, ToolCallsReply):
                for call in reply.tool_calls:
                    said += [
                        json.dumps(call.arguments),
                        json.dumps(call.arguments, separators=(",", ":")),
                        json.dumps(call.arguments, ensure_ascii=False),
                    ]
            else:
                said.append(reply.content)
    return said

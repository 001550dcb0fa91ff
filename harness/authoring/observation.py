"""Tool results that reached the model as text, found in what a wire agent sent.

Some agents send a tool's result back not as a tool-result message but as text: a ReAct loop
appends `Observation: ...` to a user or assistant message, and some frameworks answer a
native tool call the same way. No protocol ties that text to a call, so the recorded call has
no result and `tool_results_contain` cannot see it; `requests.conversation_contains` can.

A request *carries an observation* when it asks for a step that follows, in the same turn,
either a text reply the agent went on from or tool calls none of which got a result over the
wire. What it carries is each message new since the agent's previous request that is the
agent's own: found in neither the user's inputs nor the scripted replies. `harness record`
quotes it; the mutant `alter_sent_result` alters it, in that request and every later one.
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
    message_text,
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
    pieces: tuple[str, ...]
    """The texts of the messages new in it that are the agent's own, in order."""


def observations(case: Case, record: RunRecord) -> list[Observation]:
    """Each request of `record` that carries an observation, in order."""
    scripted = _scripted(case)
    found: list[Observation] = []
    previous: set[str] = set()
    for index, entry in enumerate(record.requests):
        if not answered(entry):
            continue
        pieces = conversation(request_body(entry))
        turn, step = _position(entry)
        if turn is not None and step and _after_text(case, record, turn, step):
            own = tuple(
                piece
                for piece in pieces
                if piece.strip()
                and piece not in previous
                and not any(piece.strip() in text for text in scripted)
            )
            if own:
                found.append(Observation(turn=turn, step=step, index=index, pieces=own))
        previous = set(pieces)
    return found


def needle(observation: Observation) -> str:
    """What to quote of an observation: its last new message (a result comes after its call),
    whole when short, else its longest line, cut to a length a fixture can hold."""
    text = observation.pieces[-1].strip()
    if len(text) <= _LONGEST:
        return text
    return max(text.splitlines(), key=len).strip()[:_LONGEST]


def altered(record: RunRecord, observation: Observation) -> RunRecord:
    """`record` with the observation's messages altered in its request and every later one."""
    pieces = set(observation.pieces)
    requests = [
        entry if index < observation.index or not answered(entry) else _alter(entry, pieces)
        for index, entry in enumerate(record.requests)
    ]
    return msgspec.structs.replace(record, requests=tuple(requests))


def _alter(entry: Any, pieces: set[str]) -> Any:
    body = dict(request_body(entry))
    for key in CONVERSATION_KEYS:
        value = body.get(key)
        if isinstance(value, list) and key in ("messages", "input"):
            body[key] = [_blank(item) if message_text(item) in pieces else item for item in value]
        elif value is not None and message_text(value) in pieces:
            body[key] = _blank(value)
    if isinstance(entry, dict) and "status" in entry:
        return {**entry, "body": body}
    return body


def _blank(value: Any) -> Any:
    """`value` with every string it says (not its roles, types or ids) altered."""
    if isinstance(value, str):
        return ALTERED
    if isinstance(value, dict):
        return {k: v if k in STRUCTURE_KEYS else _blank(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank(item) for item in value]
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

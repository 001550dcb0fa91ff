"""Catching a reused agent process that carries one case's conversation into the next.

A reused process must start a fresh conversation at each `case` line. One that does not
sends, in a later case's requests, the user inputs or the tool results of an earlier case:
that errors the case ("the agent kept the conversation of case X"), rather than grading a
conversation the fixture never scripted.

A request's user messages are matched first against the current case's inputs so far, and
its tool results against the calls the current case served, one for one; only what is left
over is looked for among the earlier cases' inputs and results. So two cases that share an
input, or a call id, never look like a leak.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.replay.protocol import WireProtocol

__all__ = ["KEPT_CASES", "Carryover", "CaseGuard", "user_texts"]

KEPT_CASES = 16
"""Earlier cases of a process whose inputs and results are remembered."""
_CONTAINED_MIN = 12
"""An earlier input this long or longer is found inside a message (a prompt template)."""


@dataclass(kw_only=True)
class _Marks:
    """What identifies one case's conversation."""

    name: str
    inputs: tuple[str, ...]
    results: set[tuple[str, str]] = field(default_factory=set)


class Carryover:
    """What one agent process saw of its earlier cases."""

    def __init__(self) -> None:
        self._earlier: deque[_Marks] = deque(maxlen=KEPT_CASES)

    def guard(self, name: str, inputs: Sequence[str], turn: Callable[[], int]) -> CaseGuard:
        """The check of one case's requests (`turn`: the index of the turn being played)."""
        return CaseGuard(self, _Marks(name=name, inputs=tuple(inputs)), turn)

    def remember(self, marks: _Marks) -> None:
        """Keep a finished case's marks for the cases after it."""
        self._earlier.append(marks)

    def owner(self, texts: Collection[str], results: Collection[tuple[str, str]]) -> str | None:
        """The latest earlier case that sent one of `texts` as an input, or one of `results`
        as a tool result (None: no earlier case did)."""
        for marks in reversed(self._earlier):
            if any(_same(earlier, text) for earlier in marks.inputs for text in texts):
                return marks.name
            if any(result in marks.results for result in results):
                return marks.name
        return None


class CaseGuard:
    """The check of one case's requests for what an earlier case said."""

    def __init__(self, carryover: Carryover, marks: _Marks, turn: Callable[[], int]) -> None:
        self._carryover = carryover
        self._marks = marks
        self._turn = turn

    def check(
        self, protocol: WireProtocol, body: Mapping[str, Any], served: Collection[str]
    ) -> str | None:
        """Why the request carries an earlier case's conversation (None: it does not)."""
        expected = list(self._marks.inputs[: self._turn() + 1])
        strangers: list[str] = []
        for text in user_texts(body):
            match = next((i for i, own in enumerate(expected) if _same(own, text)), None)
            if match is None:
                strangers.append(text)
            else:
                del expected[match]
        unanswered = set(served)
        foreign: list[tuple[str, str]] = []
        for result in protocol.results(body):
            pair = (result.call_id, result.text)
            if result.call_id in unanswered:
                unanswered.discard(result.call_id)
                self._marks.results.add(pair)
            else:
                foreign.append(pair)
        if not strangers and not foreign:
            return None
        owner = self._carryover.owner(strangers, foreign)
        return None if owner is None else _kept(owner)

    def close(self) -> None:
        """The case is over: its conversation is one the next cases must not carry."""
        self._carryover.remember(self._marks)


def user_texts(body: Mapping[str, Any]) -> Iterator[str]:
    """The text of each user message of a request, in any of the endpoint's protocols."""
    for key in ("messages", "input"):
        items = body.get(key)
        if isinstance(items, str) and key == "input":
            yield items
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and item.get("role") == "user":
                yield from _texts(item.get("content"))


def _texts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict) and part.get("type") in ("text", "input_text"):
            text = part.get("text")
            if isinstance(text, str):
                yield text


def _same(user_input: str, message: str) -> bool:
    """Whether `message` is `user_input`, or holds it (a long one, put in a template)."""
    if user_input.strip() == message.strip():
        return True
    return len(user_input) >= _CONTAINED_MIN and user_input in message


def _kept(owner: str) -> str:
    return (
        f"the agent kept the conversation of case {owner!r}: a reused agent must start a "
        'fresh one at each {"case": ...} line'
    )

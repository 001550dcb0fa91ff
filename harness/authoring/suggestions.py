"""Expectations for a recorded run that can fail: each one quotes something the run did.

A recorded fixture is only a test if its checks would catch a regression. Every suggestion is
derived from what was observed and is chosen so that it fails when the behaviour changes:
- `exact_tool_calls` and `tools_used` pin the calls the model made;
- one `tool_results_contain` per answered call, with a piece of its real result that appears
  neither in the user's inputs nor in the call's arguments (an agent that drops or fakes the
  result fails it); `call_index` is given where a tool is called more than once, so the order
  is pinned too;
- `response_contains` with a piece of the final text that the user's inputs do not contain.

Over the wire the harness sees the calls the model made and the results the agent sent back,
never the arguments a tool received or whether it succeeded, so no `tool_arguments_contain`
and no `all_tools_succeeded` is suggested.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["distinctive", "suggest"]

_PIECE = re.compile(r"[^\W_][\w.,:/@%+-]*[^\W_]|[^\W_]", re.UNICODE)
_LONGEST = 60


def distinctive(text: str, avoid: Sequence[str]) -> str | None:
    """The longest word-like piece of `text` found in none of `avoid` (None if there is none).

    A short text that is itself absent from `avoid` is taken whole.
    """
    stripped = " ".join(text.split())
    if stripped and len(stripped) <= _LONGEST and not any(stripped in other for other in avoid):
        return stripped
    best: str | None = None
    for match in _PIECE.finditer(text):
        piece = match[0][:_LONGEST]
        if len(piece) < 3 or any(piece in other for other in avoid):
            continue
        if best is None or len(piece) > len(best):
            best = piece
    return best


def suggest(
    calls: Sequence[tuple[str, str, str | None]], final_text: str, user_inputs: Sequence[str]
) -> dict[str, Any]:
    """The `expects` block for a run: `calls` is (name, arguments as JSON, result or None).

    Raises:
        ValueError: Nothing observed could make a check that can fail.
    """
    expects: dict[str, Any] = {}
    names = [name for name, _, _ in calls]
    expects["exact_tool_calls"] = len(calls)
    if names:
        expects["tools_used"] = list(dict.fromkeys(names))
    results: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for name, arguments, result in calls:
        index = seen.get(name, 0)
        seen[name] = index + 1
        if result is None:
            continue
        needle = distinctive(result, [*user_inputs, arguments])
        if needle is not None:
            entry: dict[str, Any] = {"tool": name, "needle": needle}
            if names.count(name) > 1:
                entry["call_index"] = index
            results.append(entry)
    if results:
        expects["tool_results_contain"] = results
    needle = distinctive(final_text, list(user_inputs))
    if needle is not None:
        expects["response_contains"] = [needle]
    if not calls and "response_contains" not in expects:
        raise ValueError(
            "the run made no tool call and its final text has nothing the inputs do not: "
            "no expectation could fail"
        )
    return expects

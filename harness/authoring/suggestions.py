"""Expectations for a recorded run that can fail: each one quotes something the run did.

A recorded fixture is only a test if its checks would catch a regression. Every suggestion is
derived from what was observed and is chosen so that it fails when the behaviour changes:
- `exact_tool_calls` and `tools_used` pin the calls the model made;
- one `tool_results_contain` per call the agent sent a result for, quoting that result. The
  result is the agent's own even when it equals the call's arguments or the user's words (an
  echo, a lookup that repeats its query): an agent whose tool returns something else, or
  fails, sends something else. `call_index` is given where a tool is called more than once,
  so the order is pinned too;
- `all_tools_succeeded` where the run can show failure (Anthropic `is_error`, or tool spans)
  and every call got a result;
- `response_contains` with a piece of the final text that neither the user's inputs nor an
  earlier turn's reply contain.

A result that reached the model as text (`harness.authoring.observation`) is quoted by a
`requests.conversation_contains`, added once the recorded fixture has replayed. Over the wire
the arguments a tool received are never seen, so `tool_arguments_contain` is suggested only
from tool spans (`argument_checks`), which show them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["argument_checks", "distinctive", "suggest"]

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
    calls: Sequence[tuple[str, str, str | None, bool]],
    final_text: str,
    user_inputs: Sequence[str],
    *,
    earlier: Sequence[str] = (),
    shows_failure: bool = False,
) -> dict[str, Any]:
    """The `expects` block for a run.

    Args:
        calls: Each call as (name, arguments as JSON, the result the agent sent or None,
            whether the agent marked it failed).
        final_text: The last turn's final reply.
        user_inputs: What the user said, every turn.
        earlier: The final replies of the turns before the last.
        shows_failure: Whether the run can show a call failed (Anthropic, or tool spans).

    Raises:
        ValueError: Nothing observed could make a check that can fail.
    """
    expects: dict[str, Any] = {}
    names = [name for name, _, _, _ in calls]
    expects["exact_tool_calls"] = len(calls)
    if names:
        expects["tools_used"] = list(dict.fromkeys(names))
    results: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for name, _, result, _ in calls:
        index = seen.get(name, 0)
        seen[name] = index + 1
        needle = None if result is None else distinctive(result, ())
        if needle is not None:
            entry: dict[str, Any] = {"tool": name, "needle": needle}
            if names.count(name) > 1:
                entry["call_index"] = index
            results.append(entry)
    if results:
        expects["tool_results_contain"] = results
    if shows_failure and calls and all(result is not None for _, _, result, _ in calls):
        expects["all_tools_succeeded"] = not any(failed for _, _, _, failed in calls)
    needle = distinctive(final_text, [*user_inputs, *earlier])
    if needle is not None:
        expects["response_contains"] = [needle]
    if not calls and "response_contains" not in expects:
        raise ValueError(
            "the run made no tool call and its final text has nothing the inputs do not: "
            "no expectation could fail"
        )
    return expects


def argument_checks(calls: Sequence[tuple[str, str]]) -> list[dict[str, Any]]:
    """One `tool_arguments_contain` per call, given as (name, the arguments the tool received
    as recorded), quoting them; `call_index` where a tool is called more than once."""
    names = [name for name, _ in calls]
    checks: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for name, arguments in calls:
        index = seen.get(name, 0)
        seen[name] = index + 1
        needle = distinctive(arguments, ())
        if needle is not None:
            entry: dict[str, Any] = {"tool": name, "needle": needle}
            if names.count(name) > 1:
                entry["call_index"] = index
            checks.append(entry)
    return checks

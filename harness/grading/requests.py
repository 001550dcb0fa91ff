"""Grading what the agent sent to the replay endpoint (`expects.requests`).

Each check but one must hold in every request: an agent that offers a tool in its first
request and forgets it in the second, or drops its system prompt after a tool call, fails.
`conversation_contains` looks in the request it names (by turn and step, or any): it is how a
value that must reach the model (a tool result sent back as text, `Observation: ...`) is
checked, whatever the protocol and the message's role or shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from harness.chat_format import content_text
from harness.fixtures.format import Case, RequestExpects, RequestNeedle
from harness.grading.result import GradeContext, GradeResult
from harness.recording import RunRecord
from harness.text import quote, quote_list

__all__ = [
    "CONVERSATION_KEYS",
    "STRUCTURE_KEYS",
    "RequestsGrader",
    "answered",
    "conversation",
    "grade_requests",
    "message_text",
    "request_body",
]

NO_REQUESTS = (
    "no request was recorded: request checks need an agent that talks to the replay endpoint "
    "(agent_command, or an agent that uses its context's base_url)"
)


class RequestsGrader:
    """The built-in grader of `expects.requests`: what the agent sent to the endpoint."""

    def grade(
        self, case: Case, record: RunRecord, context: GradeContext
    ) -> tuple[GradeResult, ...]:
        """One result per request check; none when the case declares no request checks."""
        if case.expects.requests is None:
            return ()
        return tuple(grade_requests(case.expects.requests, record.requests))


def grade_requests(checks: RequestExpects, requests: Sequence[Any]) -> Iterator[GradeResult]:
    """One grade per request check, in declaration order."""
    for name in checks.tools_offered:
        yield _every(f"requests.tools_offered({quote(name)})", requests, _offers, name)
    for text in checks.system_prompt_contains:
        label = f"requests.system_prompt_contains({quote(text)})"
        yield _every(label, requests, _system_has, text)
    for key, value in checks.params.items():
        label = f"requests.params({quote(key)}, {json.dumps(value, ensure_ascii=False)})"
        yield _every(label, requests, _param, key, value)
    for entry in checks.conversation_contains:
        yield _conversation_has(entry, requests)


def _every(check: str, requests: Sequence[Any], test: Any, *args: Any) -> GradeResult:
    requests = [request_body(entry) for entry in requests if answered(entry)]
    if not requests:
        return GradeResult(check=check, passed=False, detail=NO_REQUESTS, category="request")
    for index, request in enumerate(requests):
        failure = test(request, *args)
        if failure is not None:
            return GradeResult(
                check=check, passed=False, detail=f"request {index}: {failure}", category="request"
            )
    return GradeResult(
        check=check,
        passed=True,
        detail=f"in all {len(requests)} request(s)",
        category="request",
    )


def _offers(request: dict[str, Any], name: str) -> str | None:
    offered = [
        str((tool.get("function") or {}).get("name", tool.get("name", "")))
        for tool in request.get("tools") or ()
        if isinstance(tool, dict)
    ]
    return None if name in offered else f"not offered; tools offered: {quote_list(offered)}"


def answered(entry: Any) -> bool:
    """Whether a kept request was answered with a reply (errors are kept, not graded)."""
    return not isinstance(entry, dict) or entry.get("status", 200) == 200


def request_body(entry: Any) -> dict[str, Any]:
    body = entry.get("body") if isinstance(entry, dict) and "status" in entry else entry
    return body if isinstance(body, dict) else {}


def _system_prompts(request: dict[str, Any]) -> list[str]:
    """The system prompts of any protocol: system/developer messages (or `input` items),
    Responses `instructions`, Anthropic `system` (a string or text blocks)."""
    prompts = [
        content_text(request[key])
        for key in ("instructions", "system")
        if isinstance(request.get(key), str | list)
    ]
    for key in ("messages", "input"):
        items = request.get(key)
        prompts += [
            content_text(message.get("content"))
            for message in (items if isinstance(items, list) else ())
            if isinstance(message, dict) and message.get("role") in ("system", "developer")
        ]
    return prompts


def _system_has(request: dict[str, Any], text: str) -> str | None:
    prompts = _system_prompts(request)
    if any(text in prompt for prompt in prompts):
        return None
    return f"no system prompt contains it; system prompts: {quote_list(prompts)}"


def _param(request: dict[str, Any], key: str, value: Any) -> str | None:
    if key not in request:
        return f"{quote(key)} was not sent"
    sent = request[key]
    return None if sent == value else f"{quote(key)} was {json.dumps(sent, ensure_ascii=False)}"


# Keys that say what a message or part is, not what it says: a needle never matches them.
STRUCTURE_KEYS = frozenset(
    {"role", "type", "id", "call_id", "tool_call_id", "tool_use_id", "status", "cache_control"}
)


def conversation(request: dict[str, Any]) -> list[str]:
    """The text of each message (or `input` item, or system prompt) a request carries, in
    order: every string in it but the keys that only say what it is (`role`, `type`, ids), so
    user, assistant and tool messages, text parts, `tool_result` blocks and
    `function_call_output` items alike."""
    pieces: list[str] = []
    for key in CONVERSATION_KEYS:
        value = request.get(key)
        items = value if isinstance(value, list) and key in ("messages", "input") else [value]
        pieces += [message_text(item) for item in items if item is not None]
    return pieces


CONVERSATION_KEYS = ("instructions", "system", "messages", "input")
"""The request fields that hold the conversation, in any protocol."""


def message_text(message: Any) -> str:
    """The text one message (or item, or system prompt) says, its strings joined by lines."""
    return "\n".join(_strings(message))


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(v for k, v in reversed(item.items()) if k not in STRUCTURE_KEYS)
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _where(entry: RequestNeedle) -> str:
    if entry.turn is None:
        return "any request"
    return f"turn {entry.turn}" + ("" if entry.step is None else f", step {entry.step}")


def _conversation_has(entry: RequestNeedle, requests: Sequence[Any]) -> GradeResult:
    check = f"requests.conversation_contains({quote(entry.needle)}, {_where(entry)})"
    sent = [item for item in requests if answered(item)]
    if not sent:
        return GradeResult(check=check, passed=False, detail=NO_REQUESTS, category="request")
    named = [
        (index, item)
        for index, item in enumerate(sent)
        if entry.turn is None
        or (
            isinstance(item, dict)
            and item.get("turn") == entry.turn
            and entry.step in (None, item.get("step"))
        )
    ]
    if not named:
        detail = f"no request was made for {_where(entry)}: the agent sent {len(sent)} request(s)"
        return GradeResult(check=check, passed=False, detail=detail, category="request")
    for index, item in named:
        if any(entry.needle in piece for piece in conversation(request_body(item))):
            detail = f"in request {index}{_position(item)}"
            return GradeResult(check=check, passed=True, detail=detail, category="request")
    index, item = named[-1]
    last = conversation(request_body(item))[-3:]
    detail = (
        f"not in the conversation of {'any of ' if len(named) > 1 else ''}{len(named)} "
        f"request(s); request {index}{_position(item)} ends with: {quote_list(last)}"
    )
    return GradeResult(check=check, passed=False, detail=detail, category="request")


def _position(item: Any) -> str:
    if isinstance(item, dict) and "turn" in item:
        return f" (turn {item['turn']}, step {item.get('step')})"
    return ""

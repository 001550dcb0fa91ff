"""Grading what the agent sent to the replay endpoint (`expects.requests`).

Each check must hold in every request: an agent that offers a tool in its first request and
forgets it in the second, or drops its system prompt after a tool call, fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from harness.chat_format import content_text
from harness.fixtures.format import Case, RequestExpects
from harness.grading.result import GradeContext, GradeResult
from harness.recording import RunRecord
from harness.text import quote, quote_list

__all__ = ["RequestsGrader", "grade_requests"]

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


def _every(check: str, requests: Sequence[Any], test: Any, *args: Any) -> GradeResult:
    requests = [_body(entry) for entry in requests if _answered(entry)]
    if not requests:
        return GradeResult(check=check, passed=False, detail=NO_REQUESTS)
    for index, request in enumerate(requests):
        failure = test(request, *args)
        if failure is not None:
            return GradeResult(check=check, passed=False, detail=f"request {index}: {failure}")
    return GradeResult(check=check, passed=True, detail=f"in all {len(requests)} request(s)")


def _offers(request: dict[str, Any], name: str) -> str | None:
    offered = [
        str((tool.get("function") or {}).get("name", tool.get("name", "")))
        for tool in request.get("tools") or ()
        if isinstance(tool, dict)
    ]
    return None if name in offered else f"not offered; tools offered: {quote_list(offered)}"


def _answered(entry: Any) -> bool:
    """Whether a kept request was answered with a reply (errors are kept, not graded)."""
    return not isinstance(entry, dict) or entry.get("status", 200) == 200


def _body(entry: Any) -> dict[str, Any]:
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

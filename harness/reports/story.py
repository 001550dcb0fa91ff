"""A case's story, as the HTML report shows it: its timeline, its checks and where each
expectation stands in the fixture, its error, requests and captured output.

The JSON report holds what the run did (tool calls, final response, requests); the user inputs
and the scripted model replies are the fixture's, read again from its file when it is still
there, and redacted as every recorded text is. Every text is cut to `limit` characters.
"""

from __future__ import annotations

from typing import Any

import msgspec

from harness.errors import HarnessError
from harness.fixtures.format import LlmTrace, TextReply
from harness.fixtures.reading import decode_trace, read_fixture, value_offset
from harness.reports.document import CaseDocument
from harness.reports.location import check_path, relative_path
from harness.reports.model import CaseReport
from harness.reports.redact import redact
from harness.text import cut_middle, truncate

__all__ = ["ITEMS_LIMIT", "case_story", "status"]

ITEMS_LIMIT = 200
"""Timeline entries, checks and requests of one case the page holds, each."""

_NEWLINE = b"\n"


def status(case: CaseDocument) -> str:
    """`errored`, `skipped`, `passed` or `failed`: the case's verdict, in one word."""
    if case.error is not None:
        return "errored"
    if case.skipped is not None:
        return "skipped"
    return "passed" if case.passed else "failed"


def case_story(case: CaseDocument, limit: int) -> dict[str, Any]:
    """Everything the page shows of `case` when it is opened, texts cut to `limit` characters."""
    fixture = _fixture(case.source)
    story: dict[str, Any] = {
        "id": case.id,
        "tok": [case.input_tokens, case.output_tokens],
        "llm": case.llm_calls,
        "score": case.score,
        "tl": _timeline(case, _trace(case.source, fixture), limit),
    }
    checks = _checks(case, fixture, limit)
    # Failed checks first when some must be left out: they are why the case is open.
    story["ch"] = checks if len(checks) <= ITEMS_LIMIT else _failed_first(checks)
    if len(checks) > ITEMS_LIMIT:
        story["chm"] = len(checks) - ITEMS_LIMIT
    optional = {
        "skip": case.skipped,
        "err": case.error,
        "tb": case.traceback,
        "out": case.stdout or None,
        "errout": case.stderr or None,
    }
    for key, text in optional.items():
        if text:
            story[key] = cut_middle(text, limit)
    if case.requests:
        story["rq"] = [_json(request, limit) for request in case.requests[:ITEMS_LIMIT]]
        if len(case.requests) > ITEMS_LIMIT:
            story["rqm"] = len(case.requests) - ITEMS_LIMIT
    return story


def _fixture(source: str) -> bytes | None:
    try:
        return read_fixture(source)
    except HarnessError:
        return None


def _trace(source: str, fixture: bytes | None) -> LlmTrace | None:
    if fixture is None:
        return None
    try:
        return decode_trace(source, fixture)
    except HarnessError:
        return None


def _timeline(case: CaseDocument, trace: LlmTrace | None, limit: int) -> list[dict[str, Any]]:
    """User inputs and scripted replies (from the fixture), each recorded tool call (with its
    timing, as recorded) after the reply that asked for it, and the final response."""
    calls = [_call(call, limit) for call in case.tool_calls]
    items: list[dict[str, Any]] = []
    if trace is None:
        why = "the fixture is no longer readable here: its user inputs and replies are not shown"
        items.append({"k": "note", "t": why})
    else:
        for turn in trace.turns:
            items.append({"k": "user", "t": _text(turn.user_input, limit)})
            for step in turn.steps:
                reply = step.response
                if isinstance(reply, TextReply):
                    items.append({"k": "model", "t": _text(reply.content, limit)})
                    continue
                asked = [{"name": c.name, "a": _json(c.arguments, limit)} for c in reply.tool_calls]
                items.append({"k": "ask", "calls": asked})
                items += calls[: len(asked)]
                del calls[: len(asked)]
    items += calls  # calls no scripted reply asked for (a wire agent's own), in order
    if len(items) > ITEMS_LIMIT:
        left = len(items) - ITEMS_LIMIT
        items = items[:ITEMS_LIMIT]
        items.append({"k": "note", "t": f"{left} more entries left out: see the JSON report"})
    if case.skipped is None:
        items.append({"k": "final", "t": cut_middle(case.final_response, limit)})
    return items


def _call(call: Any, limit: int) -> dict[str, Any]:
    result = None if call.result is None else cut_middle(call.result, limit)
    item = {"k": "call", "name": call.name, "a": truncate(call.arguments, limit), "r": result}
    item["ok"] = call.success
    item["at"], item["dur"] = call.started_s, call.duration_s  # None: not known, shown so
    if call.observed != "dispatch":
        item["obs"] = call.observed
    return item


def _checks(case: CaseDocument, fixture: bytes | None, limit: int) -> list[dict[str, Any]]:
    """Each check, with the fixture file and line of the expectation it grades, when found."""
    graded = CaseReport(name=case.name, source=case.source, grades=case.grades)
    where = relative_path(case.source)
    checks = []
    for index, grade in enumerate(case.grades):
        check: dict[str, Any] = {"c": grade.check, "ok": grade.passed}
        check["d"] = truncate(grade.detail, limit)
        path = check_path(graded, index)
        offset = None if path is None or fixture is None else value_offset(fixture, path)
        if offset is not None and fixture is not None:
            check["at"] = f"{where}:{fixture.count(_NEWLINE, 0, offset) + 1}"
        checks.append(check)
    return checks


def _failed_first(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(checks, key=lambda check: bool(check["ok"]))[:ITEMS_LIMIT]


def _text(text: str, limit: int) -> str:
    """A fixture's text as a report shows it: bounded, then redacted."""
    return redact(truncate(text, limit))


def _json(value: Any, limit: int) -> str:
    """`value` as indented JSON, bounded; a fixture's or a request's."""
    try:
        text = msgspec.json.format(msgspec.json.encode(value), indent=2).decode()
    except (TypeError, UnicodeError):
        text = repr(value)
    return redact(truncate(text, limit))

"""Grading fields of a JSON final response (`expects.response_json`).

The response is parsed as JSON; failing that, the first ```` ```json ```` fenced block in it.
Each JSON Pointer (RFC 6901) must lead to a value equal to the expected one, where `true` is
not `1` and `1` is `1.0`, as in JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from harness.fixtures.format import Case
from harness.fixtures.pointer import MISSING, resolve
from harness.grading.result import GradeContext, GradeResult
from harness.recording import RunRecord
from harness.text import quote

__all__ = ["ResponseJsonGrader", "grade_response_json", "parse_response"]

_FENCE = re.compile(r"```json[ \t]*\r?\n(.*?)```", re.DOTALL | re.IGNORECASE)
_AROUND = 30
"""Characters shown on each side of where parsing stopped."""


class ResponseJsonGrader:
    """The built-in grader of `expects.response_json`."""

    def grade(
        self, case: Case, record: RunRecord, context: GradeContext
    ) -> tuple[GradeResult, ...]:
        """One result per pointer; none when the case declares none."""
        pointers = case.expects.response_json
        if not pointers:
            return ()
        return tuple(grade_response_json(pointers, record.final_response))


def grade_response_json(pointers: dict[str, Any], response: str) -> Iterator[GradeResult]:
    """Each pointer's check, in declaration order."""
    document, problem = parse_response(response)
    for pointer, expected in pointers.items():
        check = f"response_json({quote(pointer)}, {_json(expected)})"
        if problem is not None:
            yield _result(check, False, problem)
            continue
        value = resolve(document, pointer)
        if value is MISSING:
            yield _result(check, False, f"no value at {quote(pointer)} in {_json(document)}")
        elif _same(value, expected):
            yield _result(check, True, "equal")
        else:
            yield _result(check, False, f"was {_json(value)}")


def parse_response(response: str) -> tuple[Any, str | None]:
    """The JSON value of `response` (or of its first ```json block), or why there is none."""
    try:
        return json.loads(response), None
    except ValueError as exc:
        first = exc
    fence = _FENCE.search(response)
    if fence is not None:
        try:
            return json.loads(fence.group(1)), None
        except ValueError as exc:
            return None, "not JSON (the ```json block): " + _where(exc, fence.group(1))
    return None, "not JSON: " + _where(first, response)


def _where(exc: ValueError, text: str) -> str:
    if not isinstance(exc, json.JSONDecodeError):
        return str(exc)
    pos = exc.pos
    before = text[max(0, pos - _AROUND) : pos]
    after = text[pos : pos + _AROUND]
    return (
        f"{exc.msg} at line {exc.lineno}, column {exc.colno}: {quote(before)} ⟨here⟩ {quote(after)}"
    )


def _same(value: Any, expected: Any) -> bool:
    """JSON equality: booleans are not numbers; objects and arrays compare member by member."""
    if isinstance(value, bool) or isinstance(expected, bool):
        return isinstance(value, bool) and isinstance(expected, bool) and value == expected
    if isinstance(value, dict) and isinstance(expected, dict):
        return value.keys() == expected.keys() and all(_same(value[k], expected[k]) for k in value)
    if isinstance(value, list) and isinstance(expected, list):
        return len(value) == len(expected) and all(map(_same, value, expected))
    if isinstance(value, int | float) and isinstance(expected, int | float):
        return value == expected
    return type(value) is type(expected) and bool(value == expected)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _result(check: str, passed: bool, detail: str) -> GradeResult:
    return GradeResult(check=check, passed=passed, detail=detail, category="response")

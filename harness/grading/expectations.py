"""Grading a run against its declarative expectations.

Graders return data and never raise or print: each declared expectation yields one
`GradeResult` whose detail quotes what was observed, so a CI failure can be read without
re-running. Strings in labels and details are JSON-quoted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from harness.fixtures.format import Case, Expects, PayloadExpect
from harness.fixtures.pattern import compile_pattern, has_unicode_word_char
from harness.grading.budget import grade_budget
from harness.grading.requests import grade_requests
from harness.grading.response_json import grade_response_json
from harness.grading.result import GradeContext, GradeResult
from harness.grading.side_effects import grade_workspace
from harness.messages import RecordedCall
from harness.recording import RunRecord
from harness.text import quote, quote_list

__all__ = ["ExpectationsGrader", "evaluate_expects"]


class ExpectationsGrader:
    """The built-in grader of the 11 expectation kinds of a case's `expects`."""

    def grade(
        self, case: Case, record: RunRecord, context: GradeContext
    ) -> tuple[GradeResult, ...]:
        """One result per declared expectation, in the fixed order of the kinds."""
        return tuple(_grades(case.expects, record))


def evaluate_expects(
    expects: Expects, record: RunRecord, context: GradeContext | None = None
) -> tuple[GradeResult, ...]:
    """Every declared check of `expects` against `record`, as the built-in graders make them.

    The same checks, in the same order, as a case goes through: the expectations, the
    response's JSON, the workspace (`context.workspace`; none without a context), the budget,
    then the requests.
    """
    context = context or GradeContext()
    grades = list(_grades(expects, record))
    if expects.response_json:
        grades += grade_response_json(expects.response_json, record.final_response)
    if expects.workspace is not None:
        grades += grade_workspace(expects.workspace, context.workspace)
    if expects.budget is not None:
        grades += grade_budget(expects.budget, record, context)
    if expects.requests is not None:
        grades += grade_requests(expects.requests, record.requests)
    return tuple(grades)


def _grades(expects: Expects, record: RunRecord) -> Iterator[GradeResult]:
    response = record.final_response
    names = record.tool_names
    count = len(names)
    for needle in expects.response_contains:
        found = needle in response
        detail = "found" if found else f"not found in response: {quote(response)}"
        yield GradeResult(check=f"response_contains({quote(needle)})", passed=found, detail=detail)
    for needle in expects.response_not_contains:
        absent = needle not in response
        detail = "absent" if absent else f"unexpectedly present in response: {quote(response)}"
        yield GradeResult(
            check=f"response_not_contains({quote(needle)})", passed=absent, detail=detail
        )
    for tool in expects.tools_used:
        called = tool in names
        detail = "called" if called else f"not called; tools called: {_distinct(names)}"
        yield GradeResult(
            check=f"tools_used({quote(tool)})", passed=called, detail=detail, category="tool"
        )
    for tool in expects.tools_not_used:
        unused = tool not in names
        detail = "not called" if unused else "unexpectedly called"
        yield GradeResult(
            check=f"tools_not_used({quote(tool)})", passed=unused, detail=detail, category="tool"
        )
    yield from _count_grades(expects, count, names)
    for payload in expects.tool_arguments_contain:
        yield _grade_payload("tool_arguments_contain", payload, record, lambda c: c.arguments)
    for payload in expects.tool_results_contain:
        yield _grade_payload("tool_results_contain", payload, record, lambda c: c.result)
    if expects.all_tools_succeeded is not None:
        actual = record.all_tools_succeeded
        yield GradeResult(
            check=f"all_tools_succeeded({_bool(expects.all_tools_succeeded)})",
            passed=actual == expects.all_tools_succeeded,
            detail=f"actual all_tools_succeeded = {_bool(actual)}",
            category="tool",
        )
    for source in expects.response_matches:
        yield _grade_match(source, response)


def _count_grades(expects: Expects, count: int, names: tuple[str, ...]) -> Iterator[GradeResult]:
    detail = f"{count} tool call(s)"
    if expects.max_tool_calls is not None:
        bound = expects.max_tool_calls
        yield _tool(f"max_tool_calls({bound})", count <= bound, detail)
    if expects.min_tool_calls is not None:
        bound = expects.min_tool_calls
        yield _tool(f"min_tool_calls({bound})", count >= bound, detail)
    if expects.exact_tool_calls is not None:
        bound = expects.exact_tool_calls
        yield _tool(f"exact_tool_calls({bound})", count == bound, f"{detail}: {quote_list(names)}")


def _grade_payload(
    kind: str,
    expect: PayloadExpect,
    record: RunRecord,
    payload_of: Callable[[RecordedCall], str | None],
) -> GradeResult:
    tool, needle, index = expect.tool, expect.needle, expect.call_index
    found = [payload_of(call) for call in record.tool_calls if call.name == tool]
    payloads = [payload for payload in found if payload is not None]
    target = quote(tool) if index is None else f"{quote(tool)}[{index}]"
    check = f"{kind}({target}, {quote(needle)})"
    if index is not None:
        if index >= len(found):
            detail = (
                f"no call {index} to {quote(tool)}; only {len(found)} call(s) observed: "
                f"{quote_list(payloads)}"
            )
            return _tool(check, False, detail)
        payload = found[index]
        if payload is None:
            detail = f"call {index} got no result: the agent never sent one back"
            return _tool(check, False, detail)
        hit = needle in payload
        detail = f"found in call {index}" if hit else f"call {index} payload was {quote(payload)}"
        return _tool(check, hit, detail)
    if not found:
        detail = f"{quote(tool)} was never called; tools called: {_distinct(record.tool_names)}"
        return _tool(check, False, detail)
    if any(needle in payload for payload in payloads):
        return _tool(check, True, "found")
    detail = f"not found; observed payloads: {quote_list(payloads)}"
    missing = len(found) - len(payloads)
    if missing:
        detail += f"; {missing} call(s) got no result: the agent never sent one back"
    return _tool(check, False, detail)


def _grade_match(source: str, response: str) -> GradeResult:
    check = f"response_matches({quote(source)})"
    pattern = compile_pattern(source)
    if pattern.error is not None:
        return GradeResult(check=check, passed=False, detail=f"invalid regex: {pattern.error}")
    if pattern.word_boundary and has_unicode_word_char(response):
        detail = (
            "cannot decide like Rust's regex: \\b and \\B see Unicode word characters there "
            f"but only ASCII ones in RE2, and the response has non-ASCII letters or digits: "
            f"{quote(response)}; write the boundary out, e.g. (?:^|\\W)word(?:\\W|$)"
        )
        return GradeResult(check=check, passed=False, detail=detail)
    matched = pattern.search(response)
    detail = "matched" if matched else f"no match in response: {quote(response)}"
    return GradeResult(check=check, passed=matched, detail=detail)


def _tool(check: str, passed: bool, detail: str) -> GradeResult:
    return GradeResult(check=check, passed=passed, detail=detail, category="tool")


def _distinct(names: tuple[str, ...]) -> str:
    return quote_list(list(dict.fromkeys(names)))


def _bool(value: bool) -> str:
    return "true" if value else "false"

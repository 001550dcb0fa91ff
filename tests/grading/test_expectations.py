"""The 11 expectations: order, labels, verdicts and details."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from harness.fixtures.format import Case, Expects, LlmTrace
from harness.grading.expectations import evaluate_expects
from harness.grading.graders import grade_case
from harness.grading.result import GradeContext
from harness.messages import RecordedCall
from harness.recording import RunRecord
from tests.builders import echo_trace, record

ECHO_RUN = record(
    "The echo tool said: hello",
    (
        ("echo", '{"message":"alpha"}', "alpha", True),
        ("search", '{"q":"x"}', "Unknown tool: search", False),
        ("echo", '{"message":"beta"}', "beta", True),
    ),
)


def expects(**fields: Any) -> Expects:
    return msgspec.convert(fields, Expects)


def grades(**fields: Any) -> list[tuple[str, bool, str]]:
    return [(g.check, g.passed, g.detail) for g in evaluate_expects(expects(**fields), ECHO_RUN)]


def test_response_contains() -> None:
    """Passes when the needle is in the final response; a miss quotes the response."""
    assert grades(response_contains=["hello", "bye"]) == [
        ('response_contains("hello")', True, "found"),
        ('response_contains("bye")', False, 'not found in response: "The echo tool said: hello"'),
    ]


def test_response_not_contains() -> None:
    """Passes when the needle is absent."""
    assert grades(response_not_contains=["error", "echo"]) == [
        ('response_not_contains("error")', True, "absent"),
        (
            'response_not_contains("echo")',
            False,
            'unexpectedly present in response: "The echo tool said: hello"',
        ),
    ]


def test_tools_used_and_not_used() -> None:
    """Existential checks over dispatched names, unknown tools included."""
    assert grades(tools_used=["search", "fetch"], tools_not_used=["fetch", "echo"]) == [
        ('tools_used("search")', True, "called"),
        ('tools_used("fetch")', False, 'not called; tools called: ["echo", "search"]'),
        ('tools_not_used("fetch")', True, "not called"),
        ('tools_not_used("echo")', False, "unexpectedly called"),
    ]


@pytest.mark.parametrize(
    ("field", "bound", "passed"),
    [
        ("max_tool_calls", 3, True),
        ("max_tool_calls", 2, False),
        ("min_tool_calls", 3, True),
        ("min_tool_calls", 4, False),
    ],
)
def test_count_bounds_are_inclusive_and_count_every_call(
    field: str, bound: int, passed: bool
) -> None:
    """Counts include failed and unknown calls; bounds include the limit."""
    assert grades(**{field: bound}) == [(f"{field}({bound})", passed, "3 tool call(s)")]


def test_exact_tool_calls_lists_the_calls() -> None:
    """exact_tool_calls shows the dispatch sequence."""
    detail = '3 tool call(s): ["echo", "search", "echo"]'
    assert grades(exact_tool_calls=3) == [("exact_tool_calls(3)", True, detail)]
    assert grades(exact_tool_calls=2) == [("exact_tool_calls(2)", False, detail)]


def test_payload_without_index_passes_on_any_call() -> None:
    """Without call_index, any call to the tool may hold the needle."""
    assert grades(tool_arguments_contain=[{"tool": "echo", "needle": "beta"}]) == [
        ('tool_arguments_contain("echo", "beta")', True, "found")
    ]


def test_payload_without_index_miss_lists_every_payload() -> None:
    """A miss shows every payload observed for that tool."""
    (grade,) = grades(tool_results_contain=[{"tool": "echo", "needle": "gamma"}])
    assert grade == (
        'tool_results_contain("echo", "gamma")',
        False,
        'not found; observed payloads: ["alpha", "beta"]',
    )


def test_payload_for_a_tool_never_called() -> None:
    """A payload check on an uncalled tool names the tools that were called."""
    (grade,) = grades(tool_arguments_contain=[{"tool": "fetch", "needle": "x"}])
    assert grade == (
        'tool_arguments_contain("fetch", "x")',
        False,
        '"fetch" was never called; tools called: ["echo", "search"]',
    )


def test_indexed_payload_grades_per_call_ordering() -> None:
    """call_index counts calls to that tool only, in dispatch order."""
    assert grades(
        tool_arguments_contain=[
            {"tool": "echo", "needle": "alpha", "call_index": 0},
            {"tool": "echo", "needle": "alpha", "call_index": 1},
        ]
    ) == [
        ('tool_arguments_contain("echo"[0], "alpha")', True, "found in call 0"),
        (
            'tool_arguments_contain("echo"[1], "alpha")',
            False,
            'call 1 payload was "{\\"message\\":\\"beta\\"}"',
        ),
    ]


def test_indexed_payload_out_of_range_fails() -> None:
    """An index past the observed calls fails and lists them."""
    (grade,) = grades(tool_results_contain=[{"tool": "echo", "needle": "x", "call_index": 2}])
    assert grade == (
        'tool_results_contain("echo"[2], "x")',
        False,
        'no call 2 to "echo"; only 2 call(s) observed: ["alpha", "beta"]',
    )


@pytest.mark.parametrize(("expected", "passed"), [(True, False), (False, True)])
def test_all_tools_succeeded(expected: bool, passed: bool) -> None:
    """Compares overall success with the declared value."""
    label = "true" if expected else "false"
    assert grades(all_tools_succeeded=expected) == [
        (f"all_tools_succeeded({label})", passed, "actual all_tools_succeeded = false")
    ]


def test_all_tools_succeeded_with_no_calls_is_true() -> None:
    """No call means no failed call."""
    (grade,) = evaluate_expects(expects(all_tools_succeeded=True), record("x"))
    assert grade.passed


def test_response_matches_uses_re2_search() -> None:
    """A pattern matches anywhere unless anchored."""
    assert grades(response_matches=["said: h", "^said", r"^The \w+ tool"]) == [
        ('response_matches("said: h")', True, "matched"),
        ('response_matches("^said")', False, 'no match in response: "The echo tool said: hello"'),
        ('response_matches("^The \\\\w+ tool")', True, "matched"),
    ]


def test_invalid_regex_fails_its_own_check_only() -> None:
    """A bad pattern is a failed grade, and the checks after it still run."""
    result = grades(response_matches=["(unclosed", "hello$"])
    assert result[0][:2] == ('response_matches("(unclosed")', False)
    assert result[0][2].startswith("invalid regex: missing )")
    assert result[1] == ('response_matches("hello$")', True, "matched")


def test_checks_run_in_the_fixed_order() -> None:
    """Grades follow the order of the 11 expectation kinds, whatever the fixture's key order."""
    every = {
        "response_matches": ["hello"],
        "all_tools_succeeded": False,
        "tool_results_contain": [{"tool": "echo", "needle": "beta"}],
        "tool_arguments_contain": [{"tool": "echo", "needle": "beta"}],
        "exact_tool_calls": 3,
        "min_tool_calls": 1,
        "max_tool_calls": 3,
        "tools_not_used": ["fetch"],
        "tools_used": ["echo"],
        "response_not_contains": ["error"],
        "response_contains": ["hello"],
    }
    labels = [check.split("(")[0] for check, _, _ in grades(**every)]
    assert labels == [
        "response_contains",
        "response_not_contains",
        "tools_used",
        "tools_not_used",
        "max_tool_calls",
        "min_tool_calls",
        "exact_tool_calls",
        "tool_arguments_contain",
        "tool_results_contain",
        "all_tools_succeeded",
        "response_matches",
    ]


def test_expectations_grader_is_a_grader() -> None:
    """The built-in graders, through the Grader protocol, grade what evaluate_expects does."""
    declared = expects(response_contains=["hello"], tools_used=["echo"])
    trace = msgspec.convert(echo_trace(expects=msgspec.to_builtins(declared)), LlmTrace)
    case = Case(trace=trace, source="a.json")
    grades = grade_case(case, ECHO_RUN, GradeContext())
    assert grades == evaluate_expects(declared, ECHO_RUN)
    assert [g.check for g in grades] == ['response_contains("hello")', 'tools_used("echo")']


def test_indexed_result_of_an_unanswered_call_fails_saying_so() -> None:
    """A call the agent never sent a result for fails its indexed result check, naming why."""
    unanswered = RunRecord(
        final_response="done",
        tool_calls=(
            RecordedCall(name="echo", arguments='{"message":"a"}', result=None, success=False),
        ),
    )
    checks = expects(tool_results_contain=[{"tool": "echo", "needle": "a", "call_index": 0}])
    assert [(g.check, g.passed, g.detail) for g in evaluate_expects(checks, unanswered)] == [
        (
            'tool_results_contain("echo"[0], "a")',
            False,
            "call 0 got no result: the agent never sent one back",
        )
    ]

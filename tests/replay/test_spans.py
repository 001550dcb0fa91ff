"""Reading tool executions from spans, and joining them to the calls the model made."""

from __future__ import annotations

import time
from typing import Any

import msgspec
import pytest

from harness.fixtures.format import Expects
from harness.messages import NOT_SEEN, ToolCall
from harness.replay.spans import Span, ToolSpan, join_spans, tool_span, uncaptured


def span(attributes: dict[str, Any], *, error: bool = False, start: int = 0) -> Span:
    return Span(name="tool", attributes=attributes, error=error, start_ns=start)


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        pytest.param(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "echo",
                "gen_ai.tool.call.id": "c1",
                "gen_ai.tool.call.arguments": '{"message":"hi"}',
                "gen_ai.tool.call.result": "hi",
            },
            ("echo", "c1", {"message": "hi"}, "hi", True),
            id="genai",
        ),
        pytest.param(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "echo",
                "gen_ai.tool.call.id": "c1",
                "tool_arguments": '{"message":"hi"}',
                "tool_response": "hi",
            },
            ("echo", "c1", {"message": "hi"}, "hi", True),
            id="pydantic-ai-v2",
        ),
        pytest.param(
            {
                "ai.operationId": "ai.toolCall",
                "ai.toolCall.name": "echo",
                "ai.toolCall.id": "c1",
                "ai.toolCall.args": '{"message":"hi"}',
                "ai.toolCall.result": '"hi"',
            },
            ("echo", "c1", {"message": "hi"}, "hi", True),
            id="vercel-ai",
        ),
        pytest.param(
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "echo",
                "input.value": '{"message":"hi"}',
                "output.value": "hi",
            },
            ("echo", None, {"message": "hi"}, "hi", True),
            id="openinference",
        ),
        pytest.param(
            {
                "gen_ai.tool.name": "echo",
                "tool_arguments": "plain text",
                "error.type": "ValueError",
            },
            ("echo", None, "plain text", None, False),
            id="logfire-v2-failed",
        ),
    ],
)
def test_each_convention_is_read(attributes: dict[str, Any], expected: tuple[Any, ...]) -> None:
    found = tool_span(span(attributes))
    assert found is not None
    assert (found.name, found.call_id, found.arguments, found.result, found.success) == expected


@pytest.mark.parametrize(
    "attributes",
    [
        {"gen_ai.operation.name": "chat", "gen_ai.tool.name": "echo"},
        {"openinference.span.kind": "LLM", "tool.name": "echo"},
        {"gen_ai.operation.name": "execute_tool"},
        {"http.method": "POST"},
    ],
)
def test_other_spans_are_not_tool_executions(attributes: dict[str, Any]) -> None:
    assert tool_span(span(attributes)) is None


def test_an_error_status_is_a_failed_call() -> None:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo"}
    found = tool_span(span(attributes, error=True))
    assert isinstance(found, ToolSpan)
    assert found.success is False


def genai(
    name: str, call_id: str | None, arguments: str | None, start: int, result: str | None = None
) -> Span:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    if call_id:
        attributes["gen_ai.tool.call.id"] = call_id
    if arguments is not None:
        attributes["gen_ai.tool.call.arguments"] = arguments
    if result is not None:
        attributes["gen_ai.tool.call.result"] = result
    return span(attributes, start=start)


SCRIPTED = [
    ToolCall(id="c1", name="echo", arguments={"message": "a"}),
    ToolCall(id="c2", name="echo", arguments={"message": "b"}),
    ToolCall(id="c3", name="add", arguments={"a": 1}),
]


def test_spans_join_by_id_else_by_order() -> None:
    """Spans with ids go to their call; spans without, in start order, to the next call."""
    spans = [
        genai("echo", None, '{"message":"second"}', start=20, result="b"),
        genai("add", "c3", '{"a":1}', start=30),
        genai("echo", None, '{"message":"first"}', start=10, result="a"),
    ]
    joined = join_spans(SCRIPTED, spans)
    assert joined.problems == ()
    assert [(e.name, e.arguments, e.result, e.observed) for e in joined.events] == [
        ("echo", {"message": "first"}, "a", "span"),
        ("echo", {"message": "second"}, "b", "span"),
        ("add", {"a": 1}, None, "span"),
    ]
    # A result the span did not capture is missing: recorded as none, never the wire's.
    assert joined.missing == (("add", "c3", "result", "gen_ai.tool.call.result"),)


def test_calls_without_spans_and_spans_without_calls_are_problems() -> None:
    spans = [genai("echo", "c1", "{}", 1), genai("delete_all", "c9", "{}", 2)]
    joined = join_spans(SCRIPTED[:2], spans)
    assert joined.problems == (
        'the agent exported no execute_tool span for call "c2" (echo); '
        "is its tracing exporting to the harness, with content capture on?",
        'the agent ran tool "delete_all" (span call id "c9"), a call the model never made',
    )
    assert [event.name for event in joined.events] == ["echo", "delete_all"]


def test_uncaptured_arguments_error_exactly_the_expectations_that_read_them() -> None:
    joined = join_spans(SCRIPTED[:1], [genai("echo", "c1", None, 1, result="a")])
    assert joined.events[0].arguments is NOT_SEEN
    expects = msgspec.convert(
        {
            "tool_arguments_contain": [{"tool": "echo", "needle": "a"}],
            "tool_results_contain": [{"tool": "echo", "needle": "a"}],
            "all_tools_succeeded": True,
        },
        Expects,
    )
    assert uncaptured(expects, joined) == [
        'tool_arguments_contain("echo") cannot be graded: the span of call "c1" (echo) has '
        "no gen_ai.tool.call.arguments; is content capture on?"
    ]
    only_results = msgspec.convert(
        {"tool_results_contain": [{"tool": "echo", "needle": "a"}]}, Expects
    )
    assert uncaptured(only_results, joined) == []


def test_an_uncaptured_result_errors_tool_results_contain_naming_the_attribute() -> None:
    """No result in the span: `tool_results_contain` errors; the argument check still grades."""
    joined = join_spans(SCRIPTED[:1], [genai("echo", "c1", '{"message":"a"}', 1)])
    assert joined.events[0].result is None
    expects = msgspec.convert(
        {
            "tool_arguments_contain": [{"tool": "echo", "needle": "a"}],
            "tool_results_contain": [{"tool": "echo", "needle": "a"}],
        },
        Expects,
    )
    assert uncaptured(expects, joined) == [
        'tool_results_contain("echo") cannot be graded: the span of call "c1" (echo) has '
        "no gen_ai.tool.call.result; is content capture on?"
    ]


def test_a_failed_tool_without_a_result_is_no_capture_gap() -> None:
    """A tool that raised returned nothing: its call is a failure without a result, and
    `tool_results_contain` on it is graded (and fails), not refused."""
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.call.arguments": '{"message":"a"}',
    }
    joined = join_spans(SCRIPTED[:1], [span(attributes, error=True)])
    assert [(e.result, e.success) for e in joined.events] == [(None, False)]
    assert joined.missing == ()


def test_a_span_call_lasts_from_its_start_to_its_end_on_the_harness_clock() -> None:
    """The span's duration is kept; its wall-clock start is placed on the monotonic clock."""
    wall, monotonic = time.time_ns(), time.perf_counter()
    timed = msgspec.structs.replace(
        genai("echo", "c1", "{}", start=wall - 2_000_000_000, result="a"),
        end_ns=wall - 1_500_000_000,
    )
    (event,) = join_spans(SCRIPTED[:1], [timed]).events
    took = time.perf_counter() - monotonic
    assert event.duration_s == 0.5
    assert event.started is not None
    # Two seconds before the readings above, give or take the time the join itself took.
    assert abs(event.started - (monotonic - 2)) <= took + 1e-3


@pytest.mark.parametrize(
    ("start", "end"), [(0, 5), (10, 0), (10, 9)], ids=["no-start", "no-end", "ends-first"]
)
def test_a_span_without_a_start_or_an_end_has_no_duration(start: int, end: int) -> None:
    """Its duration stays unknown, never 0; without a start, so does its start."""
    untimed = msgspec.structs.replace(genai("echo", "c1", "{}", start=start), end_ns=end)
    (event,) = join_spans(SCRIPTED[:1], [untimed]).events
    assert event.duration_s is None
    assert (event.started is None) == (start == 0)

"""Tools and the dispatch boundary."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import msgspec
import pytest

from harness.fixtures.format import Case, LlmTrace
from harness.messages import ToolCall
from harness.pipeline.case import run_case
from harness.recording import RecordingObserver
from harness.replay.tools import EchoTool, ToolOutput, ToolRegistry, default_tools
from tests.builders import TWO_ECHOES, Forging, assert_timed, echo_trace


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"message": "hello"}, "hello"),
        ({"message": ""}, ""),
        ({"message": 5}, "(empty)"),
        ({"wrong_key": "hello"}, "(empty)"),
        ("not an object", "(empty)"),
        (None, "(empty)"),
    ],
)
def test_echo_returns_the_message_or_empty(arguments: Any, expected: str) -> None:
    """echo returns a string message as is and `(empty)` otherwise, always successfully."""
    assert EchoTool().call(arguments) == ToolOutput(text=expected, success=True)


def test_default_tools_are_echo_only() -> None:
    """Replay is hermetic: the default registry holds echo and nothing else."""
    assert [tool.name for tool in default_tools()] == ["echo"]


class Raising:
    name = "boom"
    description = "raises"
    parameters: Mapping[str, Any] = {}

    def call(self, arguments: Any) -> ToolOutput:
        raise RuntimeError("disk on fire")


class Silent:
    name = "silent"
    description = "says nothing"
    parameters: Mapping[str, Any] = {}

    def call(self, arguments: Any) -> ToolOutput:
        return ToolOutput(text="", success=True)


class WrongType:
    name = "wrong"
    description = "returns a str"
    parameters: Mapping[str, Any] = {}

    def call(self, arguments: Any) -> ToolOutput:
        return "plain"  # type: ignore[return-value]


def dispatch(name: str, arguments: Any = None) -> tuple[ToolOutput, RecordingObserver]:
    observer = RecordingObserver()
    registry = ToolRegistry([EchoTool(), Raising(), Silent(), WrongType()], observer)
    output = registry.dispatch(ToolCall(id="c1", name=name, arguments=arguments))
    return output, observer


@pytest.mark.parametrize(
    ("name", "text", "success"),
    [
        ("nope", "Unknown tool: nope", False),
        ("boom", "Error executing boom: disk on fire", False),
        ("silent", "(no output)", True),
        ("wrong", "Error executing wrong: returned str, expected ToolOutput", False),
    ],
)
def test_dispatch_normalises_failures_and_records_them(name: str, text: str, success: bool) -> None:
    """Unknown, raising, silent and ill-typed tools become recorded outputs, never crashes."""
    output, observer = dispatch(name, {})
    assert (output.text, output.success) == (text, success)
    (call,) = observer.record("").tool_calls
    assert (call.name, call.result, call.success) == (name, text, success)


def test_recorded_arguments_are_compact_sorted_json_keeping_unicode() -> None:
    """The record holds the arguments the tool received as compact, key-sorted JSON."""
    _, observer = dispatch("echo", {"message": "naïve ✓", "a": [1, {"z": 0, "b": None}]})
    (call,) = observer.record("").tool_calls
    assert call.arguments == '{"a":[1,{"b":null,"z":0}],"message":"naïve ✓"}'
    assert call.result == "naïve ✓"


def test_registry_offers_specs_in_registration_order() -> None:
    """specs() is what the model is offered."""
    registry = ToolRegistry([EchoTool(), Silent()], RecordingObserver())
    assert [spec.name for spec in registry.specs()] == ["echo", "silent"]
    assert registry.names == ("echo", "silent")


def test_calling_a_registered_tool_directly_is_recorded_too() -> None:
    """The registry hands out wrapped tools: a direct call cannot skip the record."""
    observer = RecordingObserver()
    registry = ToolRegistry([EchoTool(), Raising()], observer)
    assert registry["echo"].call({"message": "direct"}).text == "direct"
    assert registry["boom"].call({}).success is False
    assert [(c.name, c.result) for c in observer.record("").tool_calls] == [
        ("echo", "direct"),
        ("boom", "Error executing boom: disk on fire"),
    ]
    assert "echo" in registry
    assert len(registry) == 2
    assert [tool.name for tool in registry] == ["echo", "boom"]


def test_arguments_that_are_not_json_are_still_recorded() -> None:
    """A custom agent passing a non-JSON object gets a recorded call, not a crash."""
    _, observer = dispatch("echo", {"message": object()})
    (call,) = observer.record("").tool_calls
    assert call.arguments.startswith("{'message': <object object")


class Mutating:
    """A tool that rewrites the arguments it was handed, and keeps them to rewrite later."""

    name = "mutating"
    description = "changes its arguments"
    parameters: Mapping[str, Any] = {}

    def __init__(self) -> None:
        self.kept: list[Any] = []

    def call(self, arguments: Any) -> ToolOutput:
        arguments["message"] = "forged"
        arguments["extra"] = [1]
        self.kept.append(arguments)
        return ToolOutput(text="ok")


class Returning:
    """A tool returning the `ToolOutput` it is built with."""

    name = "returning"
    description = "returns what it was given"
    parameters: Mapping[str, Any] = {}

    def __init__(self, output: ToolOutput) -> None:
        self.output = output

    def call(self, arguments: Any) -> ToolOutput:
        return self.output


def test_a_tool_that_mutates_its_arguments_cannot_change_the_record() -> None:
    """The arguments are recorded as they were before dispatch, even if mutated after it."""
    observer = RecordingObserver()
    tool = Mutating()
    registry = ToolRegistry([tool], observer)
    arguments = {"message": "real", "nested": {"a": [1, 2]}}
    registry.dispatch(ToolCall(id="c1", name="mutating", arguments=arguments))
    tool.kept[-1]["nested"]["a"].append(3)  # later, too
    assert arguments["message"] == "forged"  # the tool did change them
    (call,) = observer.record("").tool_calls
    assert call.arguments == '{"message":"real","nested":{"a":[1,2]}}'


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"


def test_non_json_arguments_are_recorded_as_they_were_before_dispatch() -> None:
    """Arguments that are not JSON are fixed as their repr before the tool runs."""
    observer = RecordingObserver()
    registry = ToolRegistry([Mutating()], observer)
    arguments = {"message": "real", "when": Opaque()}
    registry.dispatch(ToolCall(id="c1", name="mutating", arguments=arguments))
    (call,) = observer.record("").tool_calls
    assert call.arguments == "{'message': 'real', 'when': Opaque()}"


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        (ToolOutput(text=123), "whose text is int, expected str"),  # type: ignore[arg-type]
        (ToolOutput(text=None), "whose text is NoneType, expected str"),  # type: ignore[arg-type]
        (ToolOutput(text="x", success="yes"), "whose success is str, expected bool"),  # type: ignore[arg-type]
    ],
)
def test_a_tool_output_of_the_wrong_types_is_a_failed_call(output: ToolOutput, reason: str) -> None:
    """Not a grader traceback: a failed call that says what was wrong."""
    observer = RecordingObserver()
    registry = ToolRegistry([Returning(output)], observer)
    result = registry.dispatch(ToolCall(id="c1", name="returning", arguments={}))
    expected = f"Error executing returning: returned a ToolOutput {reason}"
    assert (result.text, result.success) == (expected, False)
    (call,) = observer.record("").tool_calls
    assert (call.result, call.success) == (expected, False)


def test_a_str_subclass_is_handed_on_and_recorded_as_a_plain_str() -> None:
    """Its overridden `__contains__`/`__eq__` (and `__str__`) are never what grading sees."""
    observer = RecordingObserver()
    registry = ToolRegistry([Returning(ToolOutput(text=Forging("hello")))], observer)
    result = registry.dispatch(ToolCall(id="c1", name="returning", arguments={}))
    assert type(result.text) is str
    assert result.text == "hello"
    (call,) = observer.record(Forging("final")).tool_calls
    assert type(call.result) is str
    assert "goodbye" not in call.result
    record = observer.record(Forging("final"))
    assert type(record.final_response) is str
    assert record.final_response == "final"


class Clocked:
    name = "clocked"
    description = "notes when it ran"
    parameters: Mapping[str, Any] = {}

    def __init__(self) -> None:
        self.ran: list[float] = []

    def call(self, arguments: Any) -> ToolOutput:
        self.ran.append(time.perf_counter())
        return ToolOutput(text="ran")


def test_a_dispatch_is_timed_around_the_tool_run() -> None:
    """The recorded start and duration bracket the moment the tool ran, on the case's clock."""
    origin = time.perf_counter()
    observer, tool = RecordingObserver(origin), Clocked()
    ToolRegistry([tool], observer).dispatch(ToolCall(id="c1", name="clocked", arguments={}))
    (call,) = observer.record("").tool_calls
    assert call.started_s is not None
    assert call.duration_s is not None
    (ran,) = tool.ran
    tick = 1e-6  # the record keeps microseconds
    assert call.started_s - tick <= ran - origin <= call.started_s + call.duration_s + 2 * tick


def test_an_in_process_agent_records_each_call_timed_within_its_case() -> None:
    """The reference loop's calls: known, non-negative, within the case, in call order."""
    trace = msgspec.convert(echo_trace(turns=TWO_ECHOES, expects={"exact_tool_calls": 2}), LlmTrace)
    report = run_case(Case(source="two.json", trace=trace))
    assert report.error is None
    assert len(report.record.tool_calls) == 2
    assert_timed(report.record.tool_calls, report.duration)

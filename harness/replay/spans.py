"""Tool executions read from OpenTelemetry spans, and joined to the calls the model made.

An agent that describes its own tool executions as spans gives the harness a real tool
boundary over the wire: the arguments the tool received, what it returned, and whether it
failed. A span is read as a tool execution by the first attribute set below that it carries:

- GenAI semantic conventions (pydantic-ai 3+, the OpenAI Agents SDK's integrations, manual
  spans): `gen_ai.operation.name = execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`. pydantic-ai's instrumentation
  version 2 names the last two `tool_arguments` and `tool_response`: read as fallbacks.
- Vercel AI SDK (`experimental_telemetry`): `ai.toolCall.name`, `ai.toolCall.id`,
  `ai.toolCall.args` (or `ai.toolCall.input`), `ai.toolCall.result`.
- OpenInference (Arize Phoenix; LangChain, LlamaIndex and others):
  `openinference.span.kind = TOOL`, `tool.name`, `input.value`, `output.value`; no call id.
- logfire's `running tool` spans without an operation name: `gen_ai.tool.name` beside
  `tool_arguments` / `tool_response`.

A call failed when the span's status is ERROR or it carries `error.type`. A call's timing is
the span's: it lasted from the span's start to its end, and its start (the agent's wall clock)
is placed on the harness's monotonic clock by the wall clock's reading when the spans are
joined; a span without a start or an end has no timing of its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from harness.messages import NOT_SEEN, ToolCall, ToolDispatched

if TYPE_CHECKING:
    from harness.fixtures.format import Expects

__all__ = [
    "CONVENTIONS",
    "Span",
    "SpanJoin",
    "ToolSpan",
    "join_spans",
    "tool_span",
    "uncaptured",
]


class Span(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One exported span, reduced to what tool executions are read from."""

    name: str
    """The span's name."""
    attributes: Mapping[str, Any]
    """Its attributes, values decoded (strings, numbers, booleans, lists)."""
    error: bool = False
    """Whether its status is ERROR."""
    status_message: str = ""
    """The status description, if any."""
    start_ns: int = 0
    """When it started (nanoseconds since the epoch): the order of calls without ids."""
    end_ns: int = 0
    """When it ended (nanoseconds since the epoch; 0: not given)."""


class ToolSpan(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One tool execution, as a span described it."""

    name: str
    """The tool's name."""
    call_id: str | None
    """The id of the model's call it executed, when the span carries one."""
    arguments: Any
    """The arguments the tool received (parsed JSON where it parses), or None if not captured."""
    result: str | None
    """What the tool returned, or None if not captured."""
    success: bool
    """False when the span's status is ERROR or it carries `error.type`."""
    arguments_key: str
    """The attribute the arguments are read from (named when it is missing)."""
    result_key: str
    """The attribute the result is read from (named when it is missing)."""
    start_ns: int = 0
    """When the execution started."""
    end_ns: int = 0
    """When it ended."""


_Convention = tuple[str, str | None, str | None, tuple[str, ...], tuple[str, ...]]
"""(name key, the marker's value or None for any, call id key, argument keys, result keys)."""

CONVENTIONS: tuple[tuple[str, _Convention], ...] = (
    (
        "gen_ai.operation.name",
        (
            "gen_ai.tool.name",
            "execute_tool",
            "gen_ai.tool.call.id",
            ("gen_ai.tool.call.arguments", "tool_arguments"),
            ("gen_ai.tool.call.result", "tool_response"),
        ),
    ),
    (
        "ai.toolCall.name",
        (
            "ai.toolCall.name",
            None,
            "ai.toolCall.id",
            ("ai.toolCall.args", "ai.toolCall.input"),
            ("ai.toolCall.result",),
        ),
    ),
    ("openinference.span.kind", ("tool.name", "TOOL", None, ("input.value",), ("output.value",))),
    (
        "tool_arguments",
        ("gen_ai.tool.name", None, "gen_ai.tool.call.id", ("tool_arguments",), ("tool_response",)),
    ),
)
"""How each widespread attribute set is recognised (by its key, and value where given)."""


def tool_span(span: Span) -> ToolSpan | None:
    """The tool execution `span` describes, or None when it describes none."""
    attributes = span.attributes
    for marker, (name_key, value, id_key, argument_keys, result_keys) in CONVENTIONS:
        mark = attributes.get(marker)
        if mark is None or (value is not None and str(mark).upper() != value.upper()):
            continue
        name = attributes.get(name_key)
        if not isinstance(name, str) or not name:
            continue
        call_id = attributes.get(id_key) if id_key else None
        raw_arguments = _first(attributes, argument_keys)
        result = _first(attributes, result_keys)
        failed = span.error or attributes.get("error.type") not in (None, "")
        return ToolSpan(
            name=name,
            call_id=str(call_id) if call_id not in (None, "") else None,
            arguments=_parsed(raw_arguments),
            result=None if result is None else _text(result),
            success=not failed,
            arguments_key=argument_keys[0],
            result_key=result_keys[0],
            start_ns=span.start_ns,
            end_ns=span.end_ns,
        )
    return None


def _first(attributes: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    return next((attributes[key] for key in keys if attributes.get(key) is not None), None)


def _parsed(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value  # a plain string argument, recorded as it came


def _text(value: Any) -> str:
    """A result as text; a JSON string literal (how the Vercel AI SDK writes a text result) is
    unquoted, so the result reads as the tool returned it."""
    if isinstance(value, str):
        if len(value) >= 2 and value[0] == value[-1] == '"':
            try:
                unquoted = json.loads(value)
            except ValueError:
                return value
            return unquoted if isinstance(unquoted, str) else value
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class SpanJoin(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The calls of a case as its spans recorded them, and what did not add up."""

    events: tuple[ToolDispatched, ...]
    """One event per tool span, in the order of the scripted calls (unmatched spans last)."""
    problems: tuple[str, ...]
    """Errors of the case: scripted calls with no span, spans for calls never made."""
    missing: tuple[tuple[str, str, str, str], ...]
    """(tool, call id, `arguments` or `result`, attribute) of every attribute not captured."""


def join_spans(scripted: Sequence[ToolCall], spans: Iterable[Span]) -> SpanJoin:
    """Join the tool spans of a case to the calls the model made.

    A span is joined to the scripted call with its call id; a span without an id is joined,
    in start order, to the first scripted call of its tool that no span has answered yet.
    What a span did not capture is recorded as not seen (arguments) or as no result, never
    taken from the wire: the wire shows what the agent told the model, not what the tool
    did, so the expectations that read it error instead (`uncaptured`). A failed execution
    without a result is no gap: the tool returned nothing.
    """
    executions = sorted(
        (found for span in spans if (found := tool_span(span)) is not None),
        key=lambda found: found.start_ns,
    )
    clocks = (time.perf_counter(), time.time_ns())  # one reading of each, to place spans
    by_id = {call.id: call for call in scripted}
    joined: dict[str, ToolSpan] = {}
    stray: list[ToolSpan] = []
    for execution in executions:
        if execution.call_id is not None:
            if execution.call_id in by_id and execution.call_id not in joined:
                joined[execution.call_id] = execution
            else:
                stray.append(execution)
            continue
        target = next(
            (c for c in scripted if c.id not in joined and c.name == execution.name), None
        )
        if target is None:
            stray.append(execution)
        else:
            joined[target.id] = execution
    events: list[ToolDispatched] = []
    problems: list[str] = []
    missing: list[tuple[str, str, str, str]] = []
    for call in scripted:
        found = joined.get(call.id)
        if found is None:
            problems.append(
                f'the agent exported no execute_tool span for call "{call.id}" ({call.name}); '
                "is its tracing exporting to the harness, with content capture on?"
            )
            continue
        if found.name != call.name:
            problems.append(
                f'the span for call "{call.id}" ran tool "{found.name}", '
                f'but the model called "{call.name}"'
            )
        events.append(_event(found, call.id, missing, clocks))
    for execution in stray:
        label = f'"{execution.call_id}"' if execution.call_id else "without an id"
        problems.append(
            f'the agent ran tool "{execution.name}" (span call id {label}), '
            "a call the model never made"
        )
        events.append(_event(execution, execution.call_id or "", missing, clocks))
    return SpanJoin(events=tuple(events), problems=tuple(problems), missing=tuple(missing))


def _event(
    execution: ToolSpan,
    call_id: str,
    missing: list[tuple[str, str, str, str]],
    clocks: tuple[float, int],
) -> ToolDispatched:
    arguments = execution.arguments
    if arguments is None:
        missing.append((execution.name, call_id, "arguments", execution.arguments_key))
    result = execution.result
    if result is None and execution.success:  # a failed tool returns nothing: no capture gap
        missing.append((execution.name, call_id, "result", execution.result_key))
    return ToolDispatched(
        name=execution.name,
        arguments=NOT_SEEN if arguments is None else arguments,
        result=result,
        success=execution.success,
        observed="span",
        started=_started(execution, clocks),
        duration_s=_duration(execution),
    )


def _started(execution: ToolSpan, clocks: tuple[float, int]) -> float | None:
    """The span's start as a `time.perf_counter()` reading, by `clocks` (one reading of it and
    of the wall clock); None when the span gave no start."""
    if execution.start_ns <= 0:
        return None
    monotonic, wall_ns = clocks
    return monotonic - (wall_ns - execution.start_ns) / 1e9


def _duration(execution: ToolSpan) -> float | None:
    """From the span's start to its end, in seconds; None when it gave no start or end."""
    if execution.start_ns <= 0 or execution.end_ns < execution.start_ns:
        return None
    return (execution.end_ns - execution.start_ns) / 1e9


def uncaptured(expects: Expects, join: SpanJoin) -> list[str]:
    """An error for each expectation that needs an attribute some span of its tool lacks.

    Only the expectations that read the missing attribute cannot be graded; the others are.
    """
    problems = []
    needs = (("tool_arguments_contain", "arguments"), ("tool_results_contain", "result"))
    for kind, part in needs:
        tools = dict.fromkeys(payload.tool for payload in getattr(expects, kind))
        for tool_name in tools:
            gaps = [gap for gap in join.missing if gap[0] == tool_name and gap[2] == part]
            if gaps:
                tool, call_id, _, attribute = gaps[0]
                problems.append(
                    f'{kind}("{tool_name}") cannot be graded: the span of call "{call_id}" '
                    f"({tool}) has no {attribute}; is content capture on?"
                )
    return problems

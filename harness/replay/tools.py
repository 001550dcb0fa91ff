"""Tools an agent can dispatch, and the registry that records every dispatch.

The registry is the dispatch boundary. It wraps every tool it holds, so each call, however the
agent makes it (`registry.dispatch(call)` or `registry[name].call(arguments)`), is normalised
the same way and reported to the observer: an agent cannot forget to report a call, or report
one wrongly. What is reported is fixed before the tool runs (the arguments are copied first),
so a tool that changes the arguments it was given cannot change what was recorded; and a tool
cannot hand back a text that is not a plain `str` (a subclass could override `__eq__` or
`__contains__` to forge a pass). Each call is timed around the tool's run alone, on the
monotonic clock.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import msgspec

from harness.messages import NO_OUTPUT, ToolDispatched, ToolSpec, plain_str

if TYPE_CHECKING:
    from harness.messages import Observer, ToolCall

__all__ = ["EchoTool", "RecordedTool", "Tool", "ToolOutput", "ToolRegistry", "default_tools"]


class ToolOutput(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What one tool call returned."""

    text: str
    """The output handed back to the model."""
    success: bool = True
    """Whether the tool considers the call a success."""


@runtime_checkable
class Tool(Protocol):
    """A deterministic tool the agent can call: its spec, and `call`."""

    @property
    def name(self) -> str:
        """The name the model calls it by."""
        ...

    @property
    def description(self) -> str:
        """What the tool does, for the model."""
        ...

    @property
    def parameters(self) -> Mapping[str, Any]:
        """The JSON Schema of its arguments."""
        ...

    def call(self, arguments: Any) -> ToolOutput:
        """Run the tool on parsed JSON arguments."""
        ...


class EchoTool:
    """`echo`: returns `arguments["message"]` when it is a string, else `(empty)`."""

    name = "echo"
    description = "Echo back the given message."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"message": {"type": "string", "description": "Text to echo."}},
        "required": ["message"],
    }

    def call(self, arguments: Any) -> ToolOutput:
        """Echo the message; a missing or non-string message echoes `(empty)`."""
        message = arguments.get("message") if isinstance(arguments, dict) else None
        return ToolOutput(text=message if isinstance(message, str) else "(empty)")


def default_tools() -> tuple[Tool, ...]:
    """The Phase 0 tool set: `echo` only, so replay stays hermetic and side-effect free."""
    return (EchoTool(),)


def spec_of(tool: Tool) -> ToolSpec:
    """The spec a model is offered for `tool`."""
    return ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters)


class RecordedTool:
    """A tool as the agent sees it: every call is normalised and recorded."""

    def __init__(self, tool: Tool, observer: Observer) -> None:
        self._tool = tool
        self._observer = observer
        self.name = tool.name
        self.description = tool.description
        self.parameters = tool.parameters

    def call(self, arguments: Any) -> ToolOutput:
        """Run the tool; a raise or a wrong return type is a failed call, never a crash.

        The arguments are recorded as they were before the tool ran.
        """
        snapshot = _snapshot(arguments)
        started = time.perf_counter()
        output = _run(self._tool, arguments)
        _report(self._observer, self.name, snapshot, output, started)
        return output


class ToolRegistry:
    """The tools of one case, by name, each wrapped so that its dispatches are recorded."""

    def __init__(self, tools: Iterable[Tool], observer: Observer) -> None:
        self._observer = observer
        self._tools = {tool.name: RecordedTool(tool, observer) for tool in tools}

    @property
    def names(self) -> tuple[str, ...]:
        """The registered tool names, in registration order."""
        return tuple(self._tools)

    def __getitem__(self, name: str) -> RecordedTool:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[RecordedTool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def with_tools(self, tools: Iterable[Tool]) -> ToolRegistry:
        """This registry and `tools` (those whose name is not taken), reporting to one observer."""
        extra = [tool for tool in tools if tool.name not in self._tools]
        return ToolRegistry(
            [*(tool._tool for tool in self._tools.values()), *extra], self._observer
        )

    def specs(self) -> tuple[ToolSpec, ...]:
        """The specs offered to the model."""
        return tuple(spec_of(tool) for tool in self._tools.values())

    def dispatch(self, call: ToolCall) -> ToolOutput:
        """Run one call the model asked for, recorded; an unknown name is a failed call."""
        tool = self._tools.get(call.name)
        if tool is not None:
            return tool.call(call.arguments)
        started = time.perf_counter()
        output = ToolOutput(text=f"Unknown tool: {call.name}", success=False)
        _report(self._observer, call.name, call.arguments, output, started)
        return output


def _run(tool: Tool, arguments: Any) -> ToolOutput:
    try:
        output: object = tool.call(arguments)
    except Exception as exc:  # a tool's failure is data for the model, not a crash
        return ToolOutput(text=f"Error executing {tool.name}: {_describe(exc)}", success=False)
    if not isinstance(output, ToolOutput):
        reason = f"returned {type(output).__name__}, expected ToolOutput"
        return ToolOutput(text=f"Error executing {tool.name}: {reason}", success=False)
    text: object = output.text  # typed str, but a Struct does not check at construction
    success: object = output.success
    if not isinstance(text, str):
        reason = f"returned a ToolOutput whose text is {type(text).__name__}, expected str"
        return ToolOutput(text=f"Error executing {tool.name}: {reason}", success=False)
    if not isinstance(success, bool):
        reason = f"returned a ToolOutput whose success is {type(success).__name__}, expected bool"
        return ToolOutput(text=f"Error executing {tool.name}: {reason}", success=False)
    if type(text) is not str:  # a subclass: its own __eq__ or __contains__ could forge a check
        return ToolOutput(text=plain_str(text) or NO_OUTPUT, success=success)
    if not text:  # the model is told, as the recorder records it
        return ToolOutput(text=NO_OUTPUT, success=success)
    return output


def _snapshot(arguments: Any) -> Any:
    """A copy of `arguments` that the tool cannot reach: parsed JSON, as the boundary saw it.

    Arguments that are not JSON are recorded as their `repr` now, before the tool runs.
    """
    if type(arguments) in _IMMUTABLE:
        return arguments
    try:
        return _decode(_encode(arguments))
    except (TypeError, ValueError, UnicodeEncodeError, msgspec.DecodeError):
        return _Shown(repr(arguments))


class _Shown:
    """Arguments that are not JSON, fixed as the text the recorder shows for them."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = plain_str(text)

    def __repr__(self) -> str:
        return self.text


_IMMUTABLE = (str, int, float, bool, type(None))
_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


def _report(
    observer: Observer, name: str, arguments: Any, output: ToolOutput, started: float
) -> None:
    """Report one call that started at `started` and has just ended."""
    duration = time.perf_counter() - started
    observer.notify(
        ToolDispatched(
            name=name,
            arguments=arguments,
            result=output.text,
            success=output.success,
            started=started,
            duration_s=duration,
        )
    )


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__

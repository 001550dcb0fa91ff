"""Tools an agent can dispatch, and the registry that dispatches them.

The registry is the dispatch boundary: every call goes through `ToolRegistry.dispatch`, which
normalises failures the same way for every tool and reports the call to the observer. An agent
cannot dispatch a call that escapes the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from harness.observer import RecordedCall, ToolDispatched

if TYPE_CHECKING:
    from harness.observer import Observer
    from harness.provider import ToolCall

__all__ = [
    "EchoTool",
    "Tool",
    "ToolOutput",
    "ToolRegistry",
    "ToolSpec",
    "default_tools",
]

NO_OUTPUT = "(no output)"
_encode = msgspec.json.Encoder(order="sorted").encode


class ToolOutput(msgspec.Struct, frozen=True, kw_only=True):
    """What one tool call returned."""

    text: str
    """The output handed back to the model."""
    success: bool = True
    """Whether the tool considers the call a success."""


class ToolSpec(msgspec.Struct, frozen=True, kw_only=True):
    """How a tool is offered to a model (an OpenAI `function` tool)."""

    name: str
    """The name the model calls it by."""
    description: str
    """What the tool does, for the model."""
    parameters: Mapping[str, Any]
    """The JSON Schema of its arguments."""


class Tool(Protocol):
    """A deterministic tool the agent can call."""

    @property
    def spec(self) -> ToolSpec:
        """The tool's name, description and parameter schema."""
        ...

    def call(self, arguments: Any) -> ToolOutput:
        """Run the tool on parsed JSON arguments."""
        ...


class EchoTool:
    """`echo`: returns `arguments["message"]` when it is a string, else `(empty)`."""

    spec = ToolSpec(
        name="echo",
        description="Echo back the given message.",
        parameters={
            "type": "object",
            "properties": {"message": {"type": "string", "description": "Text to echo."}},
            "required": ["message"],
        },
    )

    def call(self, arguments: Any) -> ToolOutput:
        """Echo the message; a missing or non-string message echoes `(empty)`."""
        message = arguments.get("message") if isinstance(arguments, dict) else None
        return ToolOutput(text=message if isinstance(message, str) else "(empty)")


def default_tools() -> tuple[Tool, ...]:
    """The Phase 0 tool set: `echo` only, so replay stays hermetic and side-effect free."""
    return (EchoTool(),)


def compact_json(value: Any) -> str:
    """Encode arguments as recorded: compact, keys sorted, non-ASCII kept as is."""
    return _encode(value).decode()


class ToolRegistry:
    """The tools of one case, by name, with the dispatch boundary that records each call."""

    def __init__(self, tools: Iterable[Tool], observer: Observer) -> None:
        self._tools = {tool.spec.name: tool for tool in tools}
        self._observer = observer

    @property
    def names(self) -> tuple[str, ...]:
        """The registered tool names, in registration order."""
        return tuple(self._tools)

    def specs(self) -> tuple[ToolSpec, ...]:
        """The specs offered to the model."""
        return tuple(tool.spec for tool in self._tools.values())

    def dispatch(self, call: ToolCall) -> ToolOutput:
        """Run one call, record it, and return what goes back to the model.

        An unknown tool, a tool that raises and a tool that returns the wrong type all become
        a failed call with an explanatory output; the loop goes on.
        """
        output = self._run(call)
        self._observer.notify(
            ToolDispatched(
                call=RecordedCall(
                    name=call.name,
                    arguments=compact_json(call.arguments),
                    result=output.text,
                    success=output.success,
                )
            )
        )
        return output

    def _run(self, call: ToolCall) -> ToolOutput:
        tool = self._tools.get(call.name)
        if tool is None:
            return ToolOutput(text=f"Unknown tool: {call.name}", success=False)
        try:
            output: object = tool.call(call.arguments)
        except Exception as exc:  # a tool's failure is data for the model, not a crash
            return ToolOutput(text=f"Error executing {call.name}: {_describe(exc)}", success=False)
        if not isinstance(output, ToolOutput):
            reason = f"returned {type(output).__name__}, expected ToolOutput"
            return ToolOutput(text=f"Error executing {call.name}: {reason}", success=False)
        if not output.text:
            return ToolOutput(text=NO_OUTPUT, success=output.success)
        return output


def _describe(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__

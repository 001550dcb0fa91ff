"""What an agent loop exchanges with a model: messages, replies and the provider protocol.

The shapes are plain and map one to one onto the OpenAI chat-completions format:
`Message(role, content, tool_calls, tool_call_id)` is a chat message, `ToolCall` is one entry
of an assistant message's `tool_calls` (with `arguments` already parsed from its JSON string),
and `ModelReply` is the assistant message of one completion plus its `usage`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Protocol

import msgspec

__all__ = [
    "NOT_SEEN",
    "NO_OUTPUT",
    "Event",
    "Message",
    "ModelProvider",
    "ModelReplied",
    "ModelReply",
    "Observed",
    "Observer",
    "RecordedCall",
    "Role",
    "Seconds",
    "ToolCall",
    "ToolDispatched",
    "ToolSpec",
    "Usage",
    "compact_json",
    "plain_str",
]

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One tool call a model asks for."""

    id: str
    """The call id; a tool message answers it with the same `tool_call_id`."""
    name: str
    """The name of the tool to dispatch."""
    arguments: Any
    """The arguments, as parsed JSON (usually an object)."""


class Usage(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Tokens one completion consumed."""

    input_tokens: int = 0
    """Prompt tokens."""
    output_tokens: int = 0
    """Completion tokens."""


class ModelReply(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One completion: text, tool calls, or both."""

    text: str = ""
    """The assistant's text; empty when it only calls tools."""
    tool_calls: tuple[ToolCall, ...] = ()
    """The tools it asks to run, in order."""
    usage: Usage = Usage()
    """What the completion cost."""


class Message(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One message of the conversation history."""

    role: Role
    """`system`, `user`, `assistant` or `tool`."""
    content: str = ""
    """The text of the message (a tool message carries the tool's output)."""
    tool_calls: tuple[ToolCall, ...] = ()
    """On an assistant message: the calls it made."""
    tool_call_id: str | None = None
    """On a tool message: the id of the call it answers."""


class ModelProvider(Protocol):
    """A model: given the conversation and the tools on offer, reply once."""

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        """Return the model's next reply to `messages`."""
        ...


class _NotSeen:
    """The arguments of a call the boundary could not see (a result for an unknown call id)."""

    def __repr__(self) -> str:
        return "NOT_SEEN"


NO_OUTPUT = "(no output)"
"""The result of a call that returned empty text, as the agent is told and the call recorded."""

NOT_SEEN: Any = _NotSeen()
"""`ToolDispatched.arguments` when the boundary saw no arguments: recorded as empty text."""

Seconds = Annotated[float, msgspec.Meta(ge=0)]
"""A span of time in seconds: never negative."""

Observed = Literal["dispatch", "wire", "span"]
"""Where a call was seen: at the tool registry's dispatch, on the replay endpoint's wire, or
in an OpenTelemetry span the agent exported for the tool's execution."""


class RecordedCall(msgspec.Struct, frozen=True, kw_only=True, gc=False, omit_defaults=True):
    """One tool call, as the recorder normalised it."""

    name: str
    """The tool name the agent dispatched (unknown names included)."""
    arguments: str
    """The arguments the tool received, as compact JSON with sorted keys."""
    result: str | None
    """What the call returned to the agent; None for a call that got no result (the agent
    ended its turn on it, or sent its result as plain text)."""
    success: bool
    """Whether the call succeeded (never true for a call without result)."""
    observed: Observed = "dispatch"
    """Where the call was seen (left out of documents when `dispatch`)."""
    started_s: Seconds | None = None
    """When the call started, in seconds after its case started; None (left out of documents)
    when the boundary that saw it cannot tell. What "started" means depends on `observed`:
    the tool's run (`dispatch`, `span`), or the reply asking for it being served (`wire`)."""
    duration_s: Seconds | None = None
    """How long the call took, in seconds; None (left out of documents) when unknown. For a
    `wire` call, the round trip from the reply asking for it to the request that brought its
    result back: the tool's run and the agent's own work around it."""

    def untimed(self) -> RecordedCall:
        """This call without its timing: what two runs of one case must agree on."""
        if self.started_s is None and self.duration_s is None:
            return self
        return msgspec.structs.replace(self, started_s=None, duration_s=None)


class ToolDispatched(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A tool call was seen at a boundary: the raw facts, before the recorder normalises them."""

    name: str
    """The tool name the agent asked for."""
    arguments: Any
    """The arguments as the boundary saw them (parsed JSON, usually an object)."""
    result: str | None
    """What the call returned to the agent; None when no result came back over the wire (or,
    with tool spans, the span captured none)."""
    success: bool
    """Whether the call succeeded."""
    observed: Observed = "dispatch"
    """Which boundary saw it."""
    started: float | None = None
    """When the call started, as a `time.perf_counter()` reading; None when not known."""
    duration_s: float | None = None
    """How long the call took, in seconds; None when not known."""


class ModelReplied(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The agent consumed one model reply."""

    input_tokens: int
    """Prompt tokens of that reply."""
    output_tokens: int
    """Completion tokens of that reply."""


Event = ToolDispatched | ModelReplied


class Observer(Protocol):
    """Receives every event of a run."""

    def notify(self, event: Event) -> None:
        """Take note of one event."""
        ...


_encode = msgspec.json.Encoder(order="sorted").encode


class ToolSpec(msgspec.Struct, frozen=True, kw_only=True):
    """How a tool is offered to a model (an OpenAI `function` tool)."""

    name: str
    """The name the model calls it by."""
    description: str
    """What the tool does, for the model."""
    parameters: Mapping[str, Any]
    """The JSON Schema of its arguments."""


def plain_str(text: str) -> str:
    """`text` as a plain `str`, whatever `str` subclass it is (none of its overrides is called).

    A subclass could override `__eq__` or `__contains__` and forge any check run on it.
    """
    return text if type(text) is str else str.__str__(text)


def compact_json(value: Any) -> str:
    """Encode arguments as recorded: compact, keys sorted, non-ASCII kept as is."""
    try:
        return _encode(value).decode()
    except (TypeError, ValueError, UnicodeEncodeError):
        return repr(value)  # not JSON: record what the tool got, as faithfully as we can

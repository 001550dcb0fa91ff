"""The trace fixture format (`LlmTrace`): the types a fixture decodes into.

Every fixture type forbids unknown fields: a misspelled key is an error, never ignored.
`harness.loader` reads, decodes and admits fixtures into these types.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

__all__ = [
    "Case",
    "Expects",
    "LlmTrace",
    "PayloadExpect",
    "RequestExpects",
    "ScriptedCall",
    "Step",
    "TextReply",
    "ToolCallsReply",
    "Turn",
]

Count = Annotated[int, msgspec.Meta(ge=0)]
"""A token count, call count or index: a JSON integer >= 0."""
Text = Annotated[str, msgspec.Meta(min_length=1)]
"""A string that must not be empty (checked while decoding, and stated in the schema)."""


class _Fixture(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False):
    """Base of the fixture types: immutable, strict about keys, and not tracked by the GC.

    Decoded fixtures never reference themselves, so reference counting frees them alone; a
    suite of 10k fixtures untracked is 10k times fewer objects for each collection to scan.
    """


class ScriptedCall(_Fixture, frozen=True):
    """One tool call the model is scripted to make."""

    id: Text
    """The call id (non-empty)."""
    name: Text
    """The tool to dispatch (non-empty)."""
    arguments: Any
    """The arguments, any JSON value."""


class TextReply(_Fixture, frozen=True, tag="text", tag_field="type"):
    """A scripted reply with text and no tool calls."""

    content: str
    """The reply text."""
    input_tokens: Count = 0
    """Prompt tokens the reply reports."""
    output_tokens: Count = 0
    """Completion tokens the reply reports."""


class ToolCallsReply(_Fixture, frozen=True, tag="tool_calls", tag_field="type"):
    """A scripted reply that asks for tools."""

    tool_calls: Annotated[tuple[ScriptedCall, ...], msgspec.Meta(min_length=1)]
    """The calls, run in order (at least one)."""
    input_tokens: Count = 0
    """Prompt tokens the reply reports."""
    output_tokens: Count = 0
    """Completion tokens the reply reports."""


class Step(_Fixture, frozen=True):
    """One scripted LLM round trip."""

    response: TextReply | ToolCallsReply
    """What the model replies."""


class Turn(_Fixture, frozen=True):
    """One user message and the replies scripted for it."""

    user_input: str
    """What the user says."""
    steps: Annotated[tuple[Step, ...], msgspec.Meta(min_length=1)]
    """The model's replies, in the order the agent asks for them (at least one)."""


class PayloadExpect(_Fixture, frozen=True):
    """A needle that must appear in a tool's recorded arguments or results."""

    tool: Text
    """The tool whose calls are inspected (non-empty)."""
    needle: Text
    """The substring to find (non-empty)."""
    call_index: Count | None = None
    """Which call to `tool`, 0-based in dispatch order; any call when omitted."""


class RequestExpects(_Fixture, frozen=True):
    """Checks on what the agent sent to the replay endpoint, in every request."""

    tools_offered: tuple[Text, ...] = ()
    """Tool names every request offers in `tools`."""
    system_prompt_contains: tuple[Text, ...] = ()
    """Text every request's system (or developer) message contains."""
    params: dict[str, Any] = msgspec.field(default_factory=dict)
    """Top-level request fields and the values every request sends (e.g. temperature)."""


class Expects(_Fixture, frozen=True):
    """The declarative expectations, graded in the order of the fields below."""

    response_contains: tuple[Text, ...] = ()
    response_not_contains: tuple[Text, ...] = ()
    tools_used: tuple[Text, ...] = ()
    tools_not_used: tuple[Text, ...] = ()
    max_tool_calls: Count | None = None
    min_tool_calls: Count | None = None
    exact_tool_calls: Count | None = None
    tool_arguments_contain: tuple[PayloadExpect, ...] = ()
    tool_results_contain: tuple[PayloadExpect, ...] = ()
    all_tools_succeeded: bool | None = None
    response_matches: tuple[Text, ...] = ()
    requests: RequestExpects | None = None

    def is_empty(self) -> bool:
        """Whether no expectation is declared at all (every field at its default)."""
        return msgspec.structs.astuple(self) == _NOTHING_EXPECTED


_NOTHING_EXPECTED = msgspec.structs.astuple(Expects())


class LlmTrace(_Fixture, frozen=True):
    """One eval case: a conversation, its scripted model replies and its expectations."""

    model_name: str
    """The case name shown in every report."""
    turns: Annotated[tuple[Turn, ...], msgspec.Meta(min_length=1)]
    """The conversation (at least one turn)."""
    expects: Expects | None = None
    """What the run must satisfy; a fixture without it is rejected."""
    kind: Literal["positive", "negative"] | None = None
    """What the case asserts: a behaviour that must happen, or one that must not."""
    schema: str | None = msgspec.field(default=None, name="$schema")
    """The fixture JSON Schema, for editors (`harness schema fixture`); ignored by the harness."""


class Case(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An admitted fixture and where it came from."""

    source: str
    """The fixture path, as given."""
    trace: LlmTrace
    """The validated trace."""

    @property
    def name(self) -> str:
        """The case name (`model_name`)."""
        return self.trace.model_name

    @property
    def expects(self) -> Expects:
        """The expectations; admission guarantees they are declared."""
        assert self.trace.expects is not None  # load_case rejects a trace without them
        return self.trace.expects


STRING_FAMILIES = (
    "response_contains",
    "response_not_contains",
    "response_matches",
    "tools_used",
    "tools_not_used",
)
PAYLOAD_FAMILIES = ("tool_arguments_contain", "tool_results_contain")

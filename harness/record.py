"""What one run did: its final response, every recorded tool call, and the tokens it used."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["RecordedCall", "RunRecord"]


class RecordedCall(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One tool dispatch, as it happened at the boundary."""

    name: str
    """The tool name the agent dispatched (unknown names included)."""
    arguments: str
    """The arguments the tool received, as compact JSON with sorted keys."""
    result: str
    """What the dispatch returned to the agent."""
    success: bool
    """Whether the call succeeded."""


class RunRecord(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The outcome of one replayed case.

    `tool_calls` is the single source of truth for dispatches: names, counts and overall
    success are derived from it, never stored beside it.
    """

    final_response: str = ""
    """The text that ended the last turn."""
    tool_calls: tuple[RecordedCall, ...] = ()
    """Every dispatch, every turn, in order, failed and unknown ones included."""
    input_tokens: int = 0
    """Prompt tokens of the replies the agent consumed."""
    output_tokens: int = 0
    """Completion tokens of the replies the agent consumed."""
    requests: tuple[Any, ...] = ()
    """Each request body the agent sent to the replay endpoint (wire runs only)."""

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The name of each call, in dispatch order."""
        return tuple(call.name for call in self.tool_calls)

    @property
    def all_tools_succeeded(self) -> bool:
        """Whether every call succeeded (true when there were none)."""
        return all(call.success for call in self.tool_calls)

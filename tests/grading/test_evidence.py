"""What the wire cannot show: refused expectations and unobserved mutants, in one place."""

from __future__ import annotations

import msgspec

from harness.fixtures.format import Expects
from harness.grading.evidence import unobserved_kinds, wire_refusals

EXPECTS = msgspec.convert(
    {
        "tool_arguments_contain": [{"tool": "echo", "needle": "x"}],
        "all_tools_succeeded": True,
    },
    Expects,
)


def test_arguments_are_always_refused_and_success_only_without_an_error_flag() -> None:
    """At load (protocol unknown) only the arguments; over chat both; over Anthropic one."""
    assert [where for where, _ in wire_refusals(EXPECTS, None, "agent_command")] == [
        "$.expects.tool_arguments_contain"
    ]
    over_chat = wire_refusals(EXPECTS, ["chat_completions"], "m")
    assert [where for where, _ in over_chat] == [
        "$.expects.tool_arguments_contain",
        "$.expects.all_tools_succeeded",
    ]
    assert "over chat_completions: the protocol has no error flag" in over_chat[1][1]
    assert len(wire_refusals(EXPECTS, ["anthropic"], "m")) == 1
    assert unobserved_kinds(["anthropic"]) == {"alter_arguments"}
    assert unobserved_kinds(["responses"]) == {"alter_arguments", "flip_success"}


def test_tool_spans_lift_every_refusal() -> None:
    """A wire tool boundary (tool spans) re-admits both expectations and their mutants."""
    assert wire_refusals(EXPECTS, ["chat_completions"], "m", tool_spans=True) == []
    assert wire_refusals(EXPECTS, None, "agent_command", tool_spans=True) == []
    assert unobserved_kinds(["responses"], tool_spans=True) == frozenset()

"""What the wire cannot show: the expectations refused, and the mutants not made, in wire mode.

A case played over the replay endpoint is recorded at the wire. The wire carries the calls
the model made (the fixture's own script) and the results the agent sent back; whether a call
failed only where the protocol carries it (Anthropic `is_error`). So in wire mode:

- `tool_arguments_contain` is refused: the arguments the tool received are never seen, and
  grading the scripted ones would grade the fixture against itself;
- `all_tools_succeeded` is refused over a protocol with no error flag: every call would look
  successful.

The refusal comes at load when the load can tell (`agent_command`), else from the run (the
case errors with the reason); it never passes. `harness check` likewise makes no mutant of
what the wire does not observe. This module is the one place these rules live. Tool spans
(`tool_spans`) lift them: the OpenTelemetry spans a wire agent exports for its tool executions
show the arguments each tool received and whether it failed.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.errors import FixtureError
from harness.fixtures.format import Case, Expects
from harness.replay.protocol import WITH_ERROR_FLAG

__all__ = ["load_refusals", "unobserved_kinds", "wire_refusals"]

Refusal = tuple[str, str]
"""Where a refused expectation is (a JSON path) and why it is refused."""


def wire_refusals(
    expects: Expects, protocols: Iterable[str] | None, mode: str, *, tool_spans: bool = False
) -> list[Refusal]:
    """The expectations of `expects` the wire cannot give evidence for.

    Args:
        expects: The case's expectations.
        protocols: The protocols the agent spoke; None when not known yet (at load).
        mode: How the case came to be in wire mode, for the reason (e.g. `agent_command`).
        tool_spans: Whether the agent's tool spans record its calls: nothing is refused then.
    """
    if tool_spans:
        return []
    refused: list[Refusal] = []
    if expects.tool_arguments_contain:
        refused.append(
            (
                "$.expects.tool_arguments_contain",
                f"tool_arguments_contain is refused in wire mode ({mode}): the wire carries the "
                "arguments the model asked for (the fixture's own script), not what the tool "
                "received, so it would grade the fixture against itself",
            )
        )
    silent = sorted(set(protocols or ()) - WITH_ERROR_FLAG)
    if expects.all_tools_succeeded is not None and silent:
        refused.append(
            (
                "$.expects.all_tools_succeeded",
                f"all_tools_succeeded is refused in wire mode ({mode}) over {', '.join(silent)}: "
                "the protocol has no error flag, so every call would look successful (only "
                "Anthropic's is_error says a call failed)",
            )
        )
    return refused


def load_refusals(
    cases: Iterable[Case], mode: str, *, tool_spans: bool = False
) -> list[FixtureError]:
    """Each refusal the load can tell (the protocol is not known yet), as a fixture error."""
    return [
        FixtureError(case.source, location, reason)
        for case in cases
        for location, reason in wire_refusals(case.expects, None, mode, tool_spans=tool_spans)
    ]


def unobserved_kinds(protocols: Iterable[str], *, tool_spans: bool = False) -> frozenset[str]:
    """The mutant kinds that change what the wire does not observe, over `protocols` (none
    with `tool_spans`: the spans observe both)."""
    if tool_spans:
        return frozenset()
    kinds = {"alter_arguments"}
    if set(protocols) - WITH_ERROR_FLAG:
        kinds.add("flip_success")
    return frozenset(kinds)

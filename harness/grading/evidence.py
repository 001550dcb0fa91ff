"""What the wire cannot show: the expectations refused, and the mutants not made, in wire mode.

A case played over the replay endpoint is recorded at the wire, and what each protocol lets
it observe is the table of `harness.fixtures.observability`. So in wire mode:

- `tool_arguments_contain` is refused: the arguments the tool received are never seen, and
  grading the scripted ones would grade the fixture against itself;
- `all_tools_succeeded` is refused over a protocol with no error flag: every call would look
  successful.

What the load can tell (an expectation no protocol observes, for an `agent_command` agent)
is refused at load, every fixture and expectation in one go; the same load error names the
fixture's expectations that depend on the protocol, so the user fixes them at once. What
depends on the protocol errors each case that declares it, naming the expectation and the
protocol; it never passes. `harness check` likewise makes no mutant of what the wire does not
observe. Tool spans (`tool_spans`) lift every rule: they show the arguments each tool
received and whether it failed.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.errors import FixtureError
from harness.fixtures.format import Case, Expects
from harness.fixtures.observability import NEEDS_ERROR_FLAG, PROTOCOLS, observes

__all__ = ["declared", "load_refusals", "unobserved_kinds", "wire_refusals"]

Refusal = tuple[str, str]
"""Where a refused expectation is (a JSON path) and why it is refused."""

_EMPTY = Expects()


def declared(expects: Expects) -> list[str]:
    """The keys `expects` declares, in field order."""
    return [
        name
        for name in expects.__struct_fields__
        if getattr(expects, name) != getattr(_EMPTY, name)
    ]


def wire_refusals(
    expects: Expects, protocols: Iterable[str] | None, mode: str, *, tool_spans: bool = False
) -> list[Refusal]:
    """The expectations of `expects` the wire cannot give evidence for.

    Args:
        expects: The case's expectations.
        protocols: The protocols the agent spoke; None when not known yet (at load). Without
            one, only what no protocol observes is refused.
        mode: How the case came to be in wire mode, for the reason (e.g. `agent_command`).
        tool_spans: Whether the agent's tool spans record its calls: nothing is refused then.
    """
    spoken = sorted(set(protocols or ()))
    refused: list[Refusal] = []
    for name in declared(expects):
        silent = [p for p in spoken or PROTOCOLS if not observes(name, p, tool_spans=tool_spans)]
        if not spoken and len(silent) < len(PROTOCOLS):
            continue  # the protocol decides, and none is known (yet)
        if silent:
            refused.append((f"$.expects.{name}", _reason(name, mode, silent if spoken else None)))
    return refused


def _reason(name: str, mode: str, protocols: list[str] | None) -> str:
    if name in NEEDS_ERROR_FLAG:
        return (
            f"{name} is refused in wire mode ({mode}) over {', '.join(protocols or PROTOCOLS)}: "
            "the protocol has no error flag, so every call would look successful (only "
            "Anthropic's is_error says a call failed; tool spans show it for any protocol)"
        )
    return (
        f"{name} is refused in wire mode ({mode}): the wire carries the arguments the model "
        "asked for (the fixture's own script), not what the tool received, so it would grade "
        "the fixture against itself (tool spans show what it received)"
    )


def load_refusals(
    cases: Iterable[Case], mode: str, *, tool_spans: bool = False
) -> list[FixtureError]:
    """Each refusal the load can tell, as a fixture error, every fixture and expectation; a
    fixture refused also hears, in the same go, of its expectations the protocol decides."""
    errors: list[FixtureError] = []
    for case in cases:
        refused = wire_refusals(case.expects, None, mode, tool_spans=tool_spans)
        if not refused:
            continue
        errors += [FixtureError(case.source, where, reason) for where, reason in refused]
        errors += [
            FixtureError(
                case.source,
                f"$.expects.{name}",
                f"{name} is observed only over {', '.join(sorted(_speaking(name)))} or with tool "
                "spans: a case that speaks another protocol errors on it",
            )
            for name in declared(case.expects)
            if not tool_spans and name in NEEDS_ERROR_FLAG
        ]
    return errors


def _speaking(name: str) -> set[str]:
    return {protocol for protocol in PROTOCOLS if observes(name, protocol)}


def unobserved_kinds(protocols: Iterable[str], *, tool_spans: bool = False) -> frozenset[str]:
    """The mutant kinds that change what the wire does not observe, over `protocols` (none
    with `tool_spans`: the spans observe both)."""
    kinds = {
        kind
        for kind, name in _MUTATES.items()
        for protocol in protocols
        if not observes(name, protocol, tool_spans=tool_spans)
    }
    if not tool_spans:
        kinds.add("alter_arguments")  # observed by no protocol, whichever spoke
    return frozenset(kinds)


_MUTATES = {"alter_arguments": "tool_arguments_contain", "flip_success": "all_tools_succeeded"}
"""Each mutant kind the wire may not observe, and the expectation that would observe it."""

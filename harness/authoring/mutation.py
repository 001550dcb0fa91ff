"""Mutation strength: does a fixture notice when its run goes wrong?

A fixture is replayed once; then its real record is mutated the ways an agent regression would
change it (a dropped, duplicated or reordered call, altered arguments or results, a flipped
success, a blank or stale final response, and for a result that reached the model as text,
that text altered) and each mutant is graded. A mutant is *killed* when
at least one check fails on it; one that passes every check *survives*: the fixture would not
catch that regression. The score is killed / total.

A fixture's name also makes claims (a round trip, N dispatches, an order). When the mutants of
the kind the name claims survive, the fixture is flagged with the expectation that would catch
them: a regression at the tool boundary (a call dropped, doubled or reordered) is exactly what a
replay gate exists to catch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import msgspec

from harness.authoring.observation import ALTERED, altered, observations
from harness.fixtures.format import Case, TextReply
from harness.grading.evidence import unobserved_kinds
from harness.grading.expectations import evaluate_expects
from harness.messages import RecordedCall
from harness.recording import RunRecord
from harness.replay.protocol import protocols_of

__all__ = ["ALTERED", "Claim", "Mutant", "Strength", "claims", "mutants", "strength"]


class Mutant(msgspec.Struct, frozen=True, kw_only=True):
    """One mutated record and how it was made."""

    kind: str
    """drop_call, duplicate_call, swap_calls, alter_arguments, alter_result, flip_success,
    blank_response, earlier_response or alter_sent_result."""
    label: str
    """What was changed, e.g. `swap_calls(0, 1)`."""
    record: RunRecord
    """The mutated record."""


class Claim(msgspec.Struct, frozen=True, kw_only=True):
    """A fixture's name claims something its expectations do not check."""

    claim: str
    """`round trip`, `N dispatches` or `order`."""
    survivors: tuple[str, ...]
    """The surviving mutants of that kind."""
    fix: str
    """The expectation that would catch them."""


class Strength(msgspec.Struct, frozen=True, kw_only=True):
    """How many of a fixture's mutants its expectations kill."""

    killed: int
    total: int
    survivors: tuple[str, ...]
    claims: tuple[Claim, ...]

    @property
    def score(self) -> float:
        """killed / total (1.0 when there is nothing to mutate)."""
        return self.killed / self.total if self.total else 1.0


def mutants(record: RunRecord, earlier_responses: tuple[str, ...] = ()) -> Iterator[Mutant]:
    """Every mutant of `record`, in a fixed order; none equal to the record itself."""
    calls = record.tool_calls
    for i in range(len(calls)):
        yield _with_calls(record, "drop_call", f"drop_call({i})", calls[:i] + calls[i + 1 :])
    for i in range(len(calls)):
        doubled = calls[: i + 1] + calls[i:]
        yield _with_calls(record, "duplicate_call", f"duplicate_call({i})", doubled)
    for i, j in _same_tool_neighbours(calls):
        if calls[i].untimed() != calls[j].untimed():  # calls alike but for timing: no mutant
            swapped = list(calls)
            swapped[i], swapped[j] = calls[j], calls[i]
            yield _with_calls(record, "swap_calls", f"swap_calls({i}, {j})", tuple(swapped))
    for i, call in enumerate(calls):
        if call.arguments != ALTERED:
            changed = _replace(calls, i, msgspec.structs.replace(call, arguments=ALTERED))
            yield _with_calls(record, "alter_arguments", f"alter_arguments({i})", changed)
        if call.result != ALTERED and not _unanswered(call):
            changed = _replace(calls, i, msgspec.structs.replace(call, result=ALTERED))
            yield _with_calls(record, "alter_result", f"alter_result({i})", changed)
    for i, call in enumerate(calls):
        if _unanswered(call):
            continue
        flipped = _replace(calls, i, msgspec.structs.replace(call, success=not call.success))
        yield _with_calls(record, "flip_success", f"flip_success({i})", flipped)
    if record.final_response:
        blank = msgspec.structs.replace(record, final_response="")
        yield Mutant(kind="blank_response", label="blank_response", record=blank)
    for turn, text in enumerate(earlier_responses):
        if text != record.final_response:
            stale = msgspec.structs.replace(record, final_response=text)
            yield Mutant(
                kind="earlier_response", label=f"earlier_response(turn {turn})", record=stale
            )


def _unanswered(call: RecordedCall) -> bool:
    """A call the wire saw no result for: the agent ended its turn on it, or sent its result
    as text (`alter_sent_result` alters that). There is no result to alter or flip."""
    return call.result is None and call.observed == "wire"


def _same_tool_neighbours(calls: tuple[RecordedCall, ...]) -> Iterator[tuple[int, int]]:
    """Each call and the next call to the same tool.

    Expectations order calls per tool (`call_index`), so only those swaps are detectable;
    swapping calls to two different tools is an equivalent mutant and is not made.
    """
    last: dict[str, int] = {}
    pairs = []
    for index, call in enumerate(calls):
        if call.name in last:
            pairs.append((last[call.name], index))
        last[call.name] = index
    return iter(sorted(pairs))


def _with_calls(
    record: RunRecord, kind: str, label: str, calls: tuple[RecordedCall, ...]
) -> Mutant:
    return Mutant(kind=kind, label=label, record=msgspec.structs.replace(record, tool_calls=calls))


def _replace(
    calls: tuple[RecordedCall, ...], index: int, call: RecordedCall
) -> tuple[RecordedCall, ...]:
    return (*calls[:index], call, *calls[index + 1 :])


def earlier_responses(case: Case) -> tuple[str, ...]:
    """The final scripted text of every turn but the last."""
    texts = []
    for turn in case.trace.turns[:-1]:
        replies = [step.response for step in turn.steps if isinstance(step.response, TextReply)]
        if replies:
            texts.append(replies[-1].content)
    return tuple(texts)


def strength(case: Case, record: RunRecord) -> Strength:
    """Grade every mutant of a passing replay's record against the case's expectations.

    A record made at the wire gets no mutant of what the wire does not observe (the arguments
    a tool received; success, over a protocol with no error flag): killing one would be
    vacuous. Calls recorded from tool spans observe both, so those mutants count again.

    A mutant changes the record, never the workspace, so the workspace checks (which would
    fail for want of one) are left out: they cannot tell a mutant from the original.
    """
    survivors: list[Mutant] = []
    total = 0
    unobserved: frozenset[str] = frozenset()
    if record.requests or any(call.observed == "wire" for call in record.tool_calls):
        spans = any(call.observed == "span" for call in record.tool_calls)
        unobserved = unobserved_kinds(protocols_of(record.requests), tool_spans=spans)
    for mutant in (*mutants(record, earlier_responses(case)), *_sent_mutants(case, record)):
        if mutant.kind in unobserved:
            continue
        total += 1
        grades = evaluate_expects(case.expects, mutant.record)
        if all(grade.passed for grade in grades if grade.category != "side_effect"):
            survivors.append(mutant)
    return Strength(
        killed=total - len(survivors),
        total=total,
        survivors=tuple(mutant.label for mutant in survivors),
        claims=tuple(_unbacked_claims(case, record, survivors, unobserved)),
    )


def _sent_mutants(case: Case, record: RunRecord) -> Iterator[Mutant]:
    """Each result that reached the model as text, altered where the agent sent it."""
    for found in observations(case, record):
        label = f"alter_sent_result(turn {found.turn}, step {found.step})"
        yield Mutant(kind="alter_sent_result", label=label, record=altered(record, found))


# What a name claims, from its words (model_name and file name, split on non-letters).
_COUNT_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|single|double|triple|multi|multiple|many|\d+"
)
_ROUND_TRIP = re.compile(r"round[\W_]*trip|roundtrip|echo[\W_]*back", re.IGNORECASE)
_COUNT_WORD = re.compile(rf"(?:^|[\W_])(?:{_COUNT_WORDS})(?:$|[\W_])", re.IGNORECASE)
_COUNTED = re.compile(r"calls?|dispatch|invocation|times|tools?(?:$|[\W_])", re.IGNORECASE)
_COUNT_ALONE = re.compile(r"twice|thrice|chain", re.IGNORECASE)
_ORDER = re.compile(
    r"order|sequen|(?:^|[\W_])then(?:$|[\W_])|chain|before|after|(?:^|[\W_])first(?:$|[\W_])",
    re.IGNORECASE,
)


def claims(name: str) -> tuple[str, ...]:
    """What a case name claims: any of `round trip`, `N dispatches`, `order`."""
    found = []
    if _ROUND_TRIP.search(name):
        found.append("round trip")
    if _COUNT_ALONE.search(name) or (_COUNT_WORD.search(name) and _COUNTED.search(name)):
        found.append("N dispatches")
    if _ORDER.search(name):
        found.append("order")
    return tuple(found)


def _unbacked_claims(
    case: Case, record: RunRecord, survivors: list[Mutant], unobserved: frozenset[str]
) -> Iterator[Claim]:
    name = f"{case.name} {case.source.rsplit('/', 1)[-1]}"
    count = len(record.tool_calls)
    payload = (
        "assert the result the agent sent back with tool_results_contain (or, for a result it "
        "sent as text, requests.conversation_contains)"
        if "alter_arguments" in unobserved
        else "assert the payload with tool_arguments_contain and tool_results_contain"
    )
    rules = {
        "round trip": ({"alter_arguments", "alter_result", "alter_sent_result"}, payload),
        "N dispatches": ({"drop_call", "duplicate_call"}, f"assert exact_tool_calls: {count}"),
        "order": (
            {"swap_calls", "earlier_response"},
            "assert each call's place with call_index (and the final response's own text)",
        ),
    }
    for claim in claims(name):
        kinds, fix = rules[claim]
        surviving = tuple(mutant.label for mutant in survivors if mutant.kind in kinds)
        if surviving:
            yield Claim(claim=claim, survivors=surviving, fix=fix)
        elif claim == "order" and count > 1 and not _pins_an_order(case):
            # Calls to different tools cannot be swapped detectably; the claim is still unbacked.
            yield Claim(claim=claim, survivors=(), fix="no expectation uses call_index: " + fix)


def _pins_an_order(case: Case) -> bool:
    expects = case.expects
    payloads = (*expects.tool_arguments_contain, *expects.tool_results_contain)
    return any(entry.call_index is not None for entry in payloads)

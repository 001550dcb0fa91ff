"""Mutants of a run record, mutation scores, and the claims a case name makes."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from harness.authoring.mutation import ALTERED, claims, mutants, strength
from harness.fixtures.format import Case, LlmTrace
from harness.messages import RecordedCall
from harness.pipeline.case import run_case
from harness.recording import RunRecord
from tests.builders import TWO_ECHOES, echo_trace, record


def case(name: str, turns: list[dict[str, Any]], expects: dict[str, Any]) -> Case:
    trace = msgspec.convert(echo_trace(model_name=name, turns=turns, expects=expects), LlmTrace)
    return Case(source=f"{name}.json", trace=trace)


def test_mutants_cover_every_kind_and_never_equal_the_record() -> None:
    """Drops, duplicates, same-tool swaps, altered payloads, flips, blank and stale responses."""
    original = record(
        "final",
        (
            ("echo", '{"message":"a"}', "a", True),
            ("shout", "{}", "x", False),
            ("echo", '{"message":"b"}', "b", True),
        ),
    )
    made = list(mutants(original, ("first turn",)))
    labels = [m.label for m in made]
    assert labels == [
        "drop_call(0)", "drop_call(1)", "drop_call(2)",
        "duplicate_call(0)", "duplicate_call(1)", "duplicate_call(2)",
        "swap_calls(0, 2)",
        "alter_arguments(0)", "alter_result(0)", "alter_arguments(1)", "alter_result(1)",
        "alter_arguments(2)", "alter_result(2)",
        "flip_success(0)", "flip_success(1)", "flip_success(2)",
        "blank_response", "earlier_response(turn 0)",
    ]  # fmt: skip
    assert all(m.record != original for m in made)
    swap = made[labels.index("swap_calls(0, 2)")].record
    assert [c.arguments for c in swap.tool_calls] == ['{"message":"b"}', "{}", '{"message":"a"}']
    altered = made[labels.index("alter_result(1)")].record
    assert altered.tool_calls[1].result == ALTERED


def test_calls_alike_but_for_their_timing_make_no_swap_mutant() -> None:
    """Swapping two calls that differ only in timing would change nothing a check can see."""
    call = RecordedCall(name="echo", arguments="{}", result="a", success=True)
    early = msgspec.structs.replace(call, started_s=0.1, duration_s=0.01)
    late = msgspec.structs.replace(call, started_s=0.2, duration_s=0.02)
    made = mutants(RunRecord(final_response="a", tool_calls=(early, late)))
    assert [m.label for m in made if m.kind == "swap_calls"] == []


def test_a_fixture_with_boundary_checks_kills_every_mutant() -> None:
    """exact_tool_calls + indexed payload checks + the response: nothing survives."""
    strong = case(
        "two-echo-calls-in-order",
        TWO_ECHOES,
        {
            "exact_tool_calls": 2,
            "tool_arguments_contain": [
                {"tool": "echo", "needle": '"a"', "call_index": 0},
                {"tool": "echo", "needle": '"b"', "call_index": 1},
            ],
            "tool_results_contain": [
                {"tool": "echo", "needle": "a", "call_index": 0},
                {"tool": "echo", "needle": "b", "call_index": 1},
            ],
            "all_tools_succeeded": True,
            "response_contains": ["a b"],
        },
    )
    measured = strength(strong, run_case(strong).record)
    assert (measured.killed, measured.total, measured.survivors, measured.claims) == (
        12,
        12,
        (),
        (),
    )
    assert measured.score == 1.0


def test_existential_checks_let_count_and_order_mutants_survive() -> None:
    """A name claiming two dispatches in order, checked with tools_used only, is flagged."""
    weak = case("echo-twice-in-order", TWO_ECHOES, {"tools_used": ["echo"]})
    measured = strength(weak, run_case(weak).record)
    assert measured.score < 0.5
    flagged = {claim.claim: claim for claim in measured.claims}
    assert set(flagged) == {"N dispatches", "order"}
    assert "drop_call(0)" in flagged["N dispatches"].survivors
    assert flagged["N dispatches"].fix == "assert exact_tool_calls: 2"
    assert flagged["order"].survivors == ("swap_calls(0, 1)",)
    assert "call_index" in flagged["order"].fix


def test_scores_are_deterministic() -> None:
    """The same fixture scores the same every time."""
    weak = case("echo-twice", TWO_ECHOES, {"tools_used": ["echo"], "max_tool_calls": 2})
    assert strength(weak, run_case(weak).record) == strength(weak, run_case(weak).record)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("unicode-tool-arguments-roundtrip", ("round trip",)),
        ("echo_round_trip", ("round trip",)),
        ("two_dispatches", ("N dispatches",)),
        ("echo-twice", ("N dispatches",)),
        ("single-tool-echo", ("N dispatches",)),
        ("three_tool_calls", ("N dispatches",)),
        ("two_echo_calls", ("N dispatches",)),
        ("double_echo_dispatch", ("N dispatches",)),
        ("echo_called_3_times", ("N dispatches",)),
        ("search-and-summarise-in-sequence", ("order",)),
        ("multi-tool-chain", ("N dispatches", "order")),
        ("multi-turn-response-ordering", ("order",)),
        ("search then summarise", ("order",)),
        ("smoke-greeting", ()),
        ("no-tools-on-greeting", ()),
        ("long-multi-turn-conversation", ()),
    ],
)
def test_claims_read_from_the_name(name: str, expected: tuple[str, ...]) -> None:
    """Round trips, counts and orders are recognised in case and file names."""
    assert claims(name) == expected


def test_a_wire_round_trip_claim_asks_only_for_what_the_wire_grades() -> None:
    """Over the wire the fix names results (or the request check), never arguments."""
    turns = echo_trace()["turns"]
    wire = msgspec.structs.replace(
        record("The echo tool said: hello", (("echo", '{"message":"hello"}', "hello", True),)),
        requests=({"path": "/v1/chat/completions", "status": 200, "body": {}},),
    )
    calls = tuple(msgspec.structs.replace(c, observed="wire") for c in wire.tool_calls)
    wire = msgspec.structs.replace(wire, tool_calls=calls)
    measured = strength(case("echo-round-trip", turns, {"exact_tool_calls": 1}), wire)
    (claim,) = measured.claims
    assert claim.survivors == ("alter_result(0)",)
    assert "tool_arguments_contain" not in claim.fix
    assert "tool_results_contain" in claim.fix

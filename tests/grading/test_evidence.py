"""What the wire cannot show: refused expectations and unobserved mutants, in one place."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from harness.fixtures.format import Case, Expects, LlmTrace
from harness.fixtures.observability import NEEDS_ERROR_FLAG, PROTOCOLS, WITH_ERROR_FLAG, observes
from harness.grading.evidence import load_refusals, unobserved_kinds, wire_refusals
from harness.replay import anthropic, chat_completions, responses
from tests.builders import ECHO_TRACE
from tests.conftest import WriteFixture

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


SAMPLES: dict[str, Any] = {
    "response_contains": ["x"],
    "response_not_contains": ["x"],
    "tools_used": ["echo"],
    "tools_not_used": ["echo"],
    "max_tool_calls": 1,
    "min_tool_calls": 1,
    "exact_tool_calls": 1,
    "tool_arguments_contain": [{"tool": "echo", "needle": "x"}],
    "tool_results_contain": [{"tool": "echo", "needle": "x"}],
    "all_tools_succeeded": True,
    "response_matches": ["x"],
    "requests": {"tools_offered": ["echo"]},
    "workspace": {"file_exists": ["a.txt"]},
    "budget": {"max_llm_calls": 1},
    "response_json": {"/a": 1},
}
"""One declared value of every expectation."""

TRACE = {
    **ECHO_TRACE,
    "expects": {
        "response_contains": ["x"],
        **{key: SAMPLES[key] for key in ("tool_arguments_contain", "all_tools_succeeded")},
    },
}


def test_every_expectation_has_a_sample() -> None:
    """A new expectation must join the walk below."""
    assert set(SAMPLES) == set(Expects.__struct_fields__)


@pytest.mark.parametrize("spans", [False, True], ids=["wire", "tool-spans"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_refusal_is_exactly_what_the_protocol_does_not_observe(
    name: str, protocol: str, spans: bool
) -> None:
    """Each expectation x protocol x tool spans: refused at run time iff the table says the
    protocol does not observe it; at load iff no protocol does."""
    expects = msgspec.convert({name: SAMPLES[name]}, Expects)
    seen = observes(name, protocol, tool_spans=spans)
    refused = wire_refusals(expects, [protocol], "m", tool_spans=spans)
    assert [where for where, _ in refused] == ([] if seen else [f"$.expects.{name}"])
    if refused:
        assert name in refused[0][1]
        assert protocol in refused[0][1] or name not in NEEDS_ERROR_FLAG
    at_load = wire_refusals(expects, None, "agent_command", tool_spans=spans)
    nowhere = not any(observes(name, p, tool_spans=spans) for p in PROTOCOLS)
    assert bool(at_load) == nowhere


@pytest.mark.parametrize(
    "module", [chat_completions.ChatCompletions, responses.Responses, anthropic.Anthropic]
)
def test_each_protocol_carries_success_as_the_table_says(module: Any) -> None:
    """The endpoint's protocols and the table agree on which carries an error flag."""
    assert module.name in PROTOCOLS
    assert module.carries_success == (module.name in WITH_ERROR_FLAG)


def test_a_load_refusal_names_the_protocol_dependent_expectations_too() -> None:
    """One go: the argument refusal, and all_tools_succeeded's dependence on the protocol."""
    case = Case(source="evals/a.json", trace=msgspec.convert(TRACE, LlmTrace))
    errors = load_refusals([case, case], "agent_command")
    assert [(e.path, e.location) for e in errors] == [
        ("evals/a.json", "$.expects.tool_arguments_contain"),
        ("evals/a.json", "$.expects.all_tools_succeeded"),
    ] * 2
    assert "observed only over anthropic or with tool spans" in errors[1].reason
    assert load_refusals([case], "agent_command", tool_spans=True) == []


def test_a_command_agent_run_refuses_every_fixture_at_once(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2 before anything runs: one line per fixture and expectation, both fixtures."""
    from harness._cli.main import main

    for name in ("a", "b"):
        path = write_fixture(f"{name}.json", {**TRACE, "model_name": name})
    status = main(["run", "--suite", str(path.parent), "--agent-command", "python3 -c pass"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert [line.split(": ")[2] for line in lines] == [
        "$.expects.tool_arguments_contain",
        "$.expects.all_tools_succeeded",
    ] * 2
    assert [line.split(": ")[1].rsplit("/", 1)[-1] for line in lines] == ["a.json"] * 2 + [
        "b.json"
    ] * 2

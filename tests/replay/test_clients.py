"""Real clients, unmodified, replayed over the wire: each passes its fixture, each broken
variant fails it (`openai`, `anthropic`, `openai-agents`, `pydantic-ai`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from tests.builders import calls_step, echo_trace, text_step
from tests.conftest import WriteFixture

ROUND_TRIP = {
    "response_contains": ["hello"],
    "tools_used": ["echo"],
    "exact_tool_calls": 1,
    "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
}
TWO_TURNS = [
    {
        "user_input": "Echo hello",
        "steps": [calls_step(("echo", {"message": "hello"})), text_step("It said hello")],
    },
    {"user_input": "Again?", "steps": [text_step("Yes: hello")]},
]


def run(write_fixture: WriteFixture, trace: dict[str, Any], agent: str) -> tuple[int, Any]:
    suite = write_fixture("a.json", trace).parent
    status = main(["run", "--suite", str(suite), "--agent", agent, "--json", str(suite / "r")])
    (case,) = json.loads((suite / "r").read_text())["cases"]
    return status, case


def failed_checks(case: Any) -> list[str]:
    return [grade["check"] for grade in case["grades"] if not grade["passed"]]


@pytest.mark.parametrize(
    "agent",
    [
        "tests.wire_agents:factory",
        "tests.wire_agents:streaming_factory",
        "tests.wire_agents:responses_factory",
        "tests.wire_agents:responses_streaming_factory",
        "tests.wire_agents:responses_async_factory",
        "tests.wire_frameworks:openai_agents_factory",
        "tests.wire_frameworks:openai_agents_streaming_factory",
    ],
)
def test_openai_clients_pass_their_round_trip(agent: str, write_fixture: WriteFixture) -> None:
    """Chat Completions and Responses, sync and async, streaming or not, and openai-agents."""
    status, case = run(write_fixture, echo_trace(expects=ROUND_TRIP), agent)
    assert (status, case["error"], failed_checks(case)) == (0, None, [])
    (call,) = case["tool_calls"]
    assert (call["name"], call["result"], call["observed"]) == ("echo", "hello", "wire")


@pytest.mark.parametrize(
    ("agent", "failing"),
    [
        ("tests.wire_agents:responses_broken_factory", 'tool_results_contain("echo", "hello")'),
        ("tests.wire_frameworks:openai_agents_broken_factory", 'tool_results_contain("echo"'),
        ("tests.wire_anthropic:broken_factory", 'tool_results_contain("echo", "hello")'),
    ],
)
def test_a_broken_variant_fails_its_round_trip(
    agent: str, failing: str, write_fixture: WriteFixture
) -> None:
    """The same agent with a wrong tool result fails the fixture its healthy twin passes."""
    status, case = run(write_fixture, echo_trace(expects=ROUND_TRIP), agent)
    assert status == 1
    assert case["error"] is None
    assert any(check.startswith(failing) for check in failed_checks(case))


def test_a_dropped_result_errors_the_case(write_fixture: WriteFixture) -> None:
    """A loop that goes on without sending a call's result back errors, naming the call."""
    status, case = run(
        write_fixture, echo_trace(expects=ROUND_TRIP), "tests.wire_agents:dropping_factory"
    )
    assert status == 1
    assert 'scripted tool call "call_1" (echo) never got a result' in case["error"]


@pytest.mark.parametrize(
    "agent",
    [
        "tests.wire_anthropic:factory",
        "tests.wire_anthropic:streaming_factory",
        "tests.wire_anthropic:async_factory",
    ],
)
def test_anthropic_clients_pass_and_success_is_observed(
    agent: str, write_fixture: WriteFixture
) -> None:
    """Messages, sync and async, streaming or not; all_tools_succeeded is graded over it."""
    expects = {**ROUND_TRIP, "all_tools_succeeded": True, "requests": {"tools_offered": ["echo"]}}
    expects["requests"] = {"tools_offered": ["echo"], "system_prompt_contains": ["helpful"]}
    status, case = run(write_fixture, echo_trace(expects=expects), agent)
    assert (status, case["error"], failed_checks(case)) == (0, None, [])
    assert case["requests"][0]["path"] == "/v1/messages"


def test_an_is_error_result_is_a_failed_call(write_fixture: WriteFixture) -> None:
    """`is_error: true` over Anthropic records the call as failed."""
    expects = {**ROUND_TRIP, "all_tools_succeeded": True}
    status, case = run(
        write_fixture, echo_trace(expects=expects), "tests.wire_anthropic:is_error_factory"
    )
    assert status == 1
    assert failed_checks(case) == ["all_tools_succeeded(true)"]
    assert case["tool_calls"][0]["success"] is False


FINAL = {"answer": "The echo tool said: hello"}
FINAL_RESULT = echo_trace(
    turns=[
        {
            "user_input": "Echo hello",
            "steps": [
                calls_step(("echo", {"message": "hello"})),
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {"id": "call_9", "name": "final_result", "arguments": FINAL}
                        ],
                    }
                },
            ],
        }
    ],
    expects={
        "response_contains": ["hello"],
        "tools_used": ["echo", "final_result"],
        "exact_tool_calls": 2,
        "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
    },
)


@pytest.mark.parametrize("model", ["chat", "anthropic"])
def test_pydantic_ai_ends_on_final_result_without_answering_it(
    model: str, write_fixture: WriteFixture
) -> None:
    """The run ends on `final_result`: a call without result, counted, not an error."""
    status, case = run(
        write_fixture, FINAL_RESULT, f"tests.wire_frameworks:pydantic_{model}_factory"
    )
    assert (status, case["error"], failed_checks(case)) == (0, None, [])
    echo, final = case["tool_calls"]
    assert (echo["result"], final["name"], final["result"], final["success"]) == (
        "hello",
        "final_result",
        None,
        False,
    )


@pytest.mark.parametrize("model", ["chat", "anthropic"])
def test_a_broken_pydantic_ai_tool_fails(model: str, write_fixture: WriteFixture) -> None:
    """The same pydantic-ai agent with a wrong tool result fails the fixture."""
    agent = f"tests.wire_frameworks:pydantic_{model}_broken_factory"
    status, case = run(write_fixture, FINAL_RESULT, agent)
    assert status == 1
    assert failed_checks(case) == ['tool_results_contain("echo", "hello")']


def test_results_of_a_call_without_result_fail_with_a_reason(write_fixture: WriteFixture) -> None:
    """tool_results_contain on a call that got no result says so."""
    trace = {
        **FINAL_RESULT,
        "expects": {"tool_results_contain": [{"tool": "final_result", "needle": "x"}]},
    }
    status, case = run(write_fixture, trace, "tests.wire_frameworks:pydantic_chat_factory")
    assert status == 1
    assert "got no result" in case["grades"][0]["detail"]


@pytest.mark.parametrize(
    "agent", ["tests.wire_frameworks:openai_agents_factory", "tests.wire_anthropic:factory"]
)
def test_multi_turn_history_is_not_counted_twice(agent: str, write_fixture: WriteFixture) -> None:
    """The whole history comes again in the second turn; its call is recorded once."""
    expects = {**ROUND_TRIP, "response_contains": ["Yes: hello"]}
    status, case = run(write_fixture, echo_trace(turns=TWO_TURNS, expects=expects), agent)
    assert (status, case["error"], failed_checks(case)) == (0, None, [])
    assert len(case["requests"]) == 3


def test_tool_names_declare_a_wire_agents_own_tools(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A fixture may name a tool it does not script once `tool_names` declares it."""
    trace = echo_trace(expects={**ROUND_TRIP, "tools_not_used": ["delete_all"]})
    write_fixture("a.json", trace)
    agent = "tests.wire_agents:responses_factory"
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.harness]\nsuite_dir = "suite"\nagent = "{agent}"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main(["run"]) == 2
    assert "or --tool-names a,b" in capsys.readouterr().err
    assert main(["run", "--tool-names", "delete_all"]) == 0
    command = f"{sys.executable} -c pass"
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.harness]\nsuite_dir = "suite"\nagent_command = "{command}"\n'
    )
    capsys.readouterr()
    assert main(["run"]) == 2
    assert (
        'names tool "delete_all", which is neither registered nor scripted'
        in capsys.readouterr().err
    )
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.harness]\nsuite_dir = "suite"\nagent_command = "{command}"\n'
        'tool_names = ["delete_all"]\n'
    )
    assert main(["run"]) == 1  # admitted: the agent (`pass`) then errors its case
    assert main(["run", "--tool-names", "other"]) == 2  # the flag overrides the key


ANTHROPIC_SCRIPT = """
import json, sys
from anthropic import Anthropic

client = Anthropic(max_retries=0)  # ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY from the harness
tools = [{"name": "echo", "input_schema": {"type": "object"}}]
messages = []
for line in sys.stdin:
    messages.append({"role": "user", "content": json.loads(line)["user_input"]})
    while True:
        message = client.messages.create(
            model="any", max_tokens=64, messages=messages, tools=tools
        )
        messages.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
        calls = [b for b in message.content if b.type == "tool_use"]
        if not calls:
            break
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": c.id, "content": c.input["message"]}
            for c in calls
        ]})
    text = "".join(b.text for b in message.content if b.type == "text")
    print(json.dumps({"response": text}), flush=True)
"""


def test_an_anthropic_subprocess_gets_its_environment(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """agent_command agents get ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY; success is graded."""
    (tmp_path / "agent.py").write_text(ANTHROPIC_SCRIPT)
    expects = {**ROUND_TRIP, "all_tools_succeeded": True}
    suite = write_fixture("a.json", echo_trace(expects=expects)).parent
    command = f"{sys.executable} {tmp_path / 'agent.py'}"
    argv = ["run", "--suite", str(suite), "--json", str(suite / "r"), "--agent-command", command]
    assert main([*argv, "--tool-names", "echo"]) == 0
    (case,) = json.loads((suite / "r").read_text())["cases"]
    assert case["tool_calls"][0]["result"] == "hello"


def test_cases_over_the_wire_stay_isolated_with_jobs(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Several cases in worker processes: each records only its own calls and requests."""
    for index in range(4):
        message = f"hello-{index}"
        step = calls_step(("echo", {"message": message}))
        turns = [{"user_input": "Echo", "steps": [step, text_step(f"said {message}")]}]
        expects = {
            "response_contains": [message],
            "exact_tool_calls": 1,
            "tool_results_contain": [{"tool": "echo", "needle": message}],
        }
        trace = echo_trace(model_name=f"c{index}", turns=turns, expects=expects)
        suite = write_fixture(f"c{index}.json", trace).parent
    argv = ["run", "--suite", str(suite), "--jobs", "2", "--format", "json"]
    assert main([*argv, "--agent", "tests.wire_agents:responses_factory"]) == 0
    cases = json.loads(capsys.readouterr().out)["cases"]
    assert [case["name"] for case in cases] == ["c0", "c1", "c2", "c3"]
    for index, case in enumerate(cases):
        (call,) = case["tool_calls"]
        assert call["result"] == f"hello-{index}"
        assert len(case["requests"]) == 2

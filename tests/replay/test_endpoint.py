"""The replay endpoint: Chat Completions through the real client, HTTP robustness, and
recording at the wire."""

from __future__ import annotations

import json
import sys
import textwrap
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from openai import BadRequestError, OpenAI

from harness._cli.main import main
from harness.replay.endpoint import ReplayServer
from tests.builders import ECHO_TRACE, echo_trace, portable_regression, replay_session, text_step
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]
REGRESSION = str(REPO / "evals" / "regression")


@pytest.fixture(scope="module")
def server() -> Any:
    served = ReplayServer()
    yield served
    served.close()


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    """Closes the clients a test opens."""
    with ExitStack() as opened:
        yield opened


def session_for(server: ReplayServer, trace: dict[str, Any]) -> Any:
    return replay_session(server, trace)


def test_completions_serve_the_script_in_the_official_format(
    server: ReplayServer, stack: ExitStack
) -> None:
    """A tool_calls step, then a text step: ids, JSON-string arguments, usage, finish_reason."""
    context, observer = session_for(server, ECHO_TRACE)
    with context as session:
        client = stack.enter_context(
            OpenAI(base_url=server.url, api_key=session.api_key, max_retries=0)
        )
        first = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
        (call,) = [c.model_dump() for c in first.choices[0].message.tool_calls or ()]
        function = call["function"]
        assert (call["id"], function["name"], json.loads(function["arguments"])) == (
            "call_1",
            "echo",
            {"message": "hello"},
        )
        assert first.choices[0].finish_reason == "tool_calls"
        assert first.usage is not None
        assert (
            first.usage.prompt_tokens,
            first.usage.completion_tokens,
        ) == (30, 15)
        messages: list[Any] = [
            {"role": "user", "content": "hi"},
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": "call_1", "content": "hello"},
        ]
        second = client.chat.completions.create(model="m", messages=messages)
        assert second.choices[0].message.content == "The echo tool said: hello"
        assert second.choices[0].finish_reason == "stop"
        record = session.close()
        assert record.problems == ()
        assert [(r["path"], r["status"]) for r in record.requests] == [
            ("/v1/chat/completions", 200)
        ] * 2
    (recorded,) = observer.record("").tool_calls
    assert (recorded.name, recorded.arguments, recorded.result) == (
        "echo",
        '{"message":"hello"}',
        "hello",
    )
    assert (observer.record("").input_tokens, observer.record("").output_tokens) == (80, 25)


def test_streaming_ends_with_done(server: ReplayServer, stack: ExitStack) -> None:
    """stream=true answers as server-sent events in the official chunk format."""
    context, _ = session_for(server, ECHO_TRACE)
    with context as session:
        client = stack.enter_context(
            OpenAI(base_url=server.url, api_key=session.api_key, max_retries=0)
        )
        chunks = list(
            client.chat.completions.create(
                model="m",
                messages=[{"role": "user", "content": "hi"}],
                stream=True,
                stream_options={"include_usage": True},
            )
        )
        deltas = [c.choices[0].delta for c in chunks if c.choices]
        (call,) = [part for delta in deltas for part in delta.tool_calls or ()]
        assert (call.id, call.function and call.function.name) == ("call_1", "echo")
        assert chunks[-1].usage is not None
        assert chunks[-1].usage.total_tokens == 45
        assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
        request = urllib.request.Request(
            f"{server.url}/chat/completions",
            data=json.dumps({"model": "m", "messages": [], "stream": True}).encode(),
            headers={
                "Authorization": f"Bearer {session.api_key}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request) as response:
            body = response.read().decode()
        assert body.rstrip().endswith("data: [DONE]")
        assert "The echo tool said: hello" in body


def test_models_and_errors(server: ReplayServer, stack: ExitStack) -> None:
    """GET /v1/models works; an unknown key and an unscripted request get OpenAI-style errors."""
    with urllib.request.urlopen(f"{server.url}/models") as response:
        assert json.loads(response.read())["data"][0]["id"] == "harness-replay"
    assert server.url.startswith("http://127.0.0.1:")
    context, _ = session_for(
        server, echo_trace(turns=[{"user_input": "hi", "steps": [text_step("only")]}])
    )
    with context as session:
        client = stack.enter_context(
            OpenAI(base_url=server.url, api_key=session.api_key, max_retries=0)
        )
        client.chat.completions.create(model="m", messages=[])
        with pytest.raises(
            BadRequestError, match="requested more LLM responses than the trace provides"
        ):
            client.chat.completions.create(model="m", messages=[])
        assert "turn 0 requested more" in session.problems[0]
    stranger = stack.enter_context(OpenAI(base_url=server.url, api_key="not-a-case", max_retries=0))
    with pytest.raises(Exception, match="unknown API key"):
        stranger.chat.completions.create(model="m", messages=[])


REFUSED = "tool_arguments_contain is refused in wire mode (the agent used its context's base_url)"


@pytest.mark.parametrize(
    "agent", ["tests.wire_agents:factory", "tests.wire_agents:streaming_factory"]
)
def test_regression_suite_over_the_wire_passes_or_refuses(
    agent: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The gated fixtures replay through a real client: those that assert what the wire cannot
    see are refused (the case errors with why), every other one passes."""
    monkeypatch.chdir(REPO)
    report = tmp_path / "r.json"
    suite = portable_regression(tmp_path)
    assert main(["run", "--suite", suite, "--json", str(report), "--agent", agent]) == 1
    capsys.readouterr()
    doc = json.loads(report.read_text())
    outcomes = {c["name"]: (c["passed"], c["error"] or "") for c in doc["cases"]}
    refused = {name for name, (_, error) in outcomes.items() if error.startswith(REFUSED)}
    assert "unicode-tool-arguments-roundtrip" in refused
    assert "all_tools_succeeded is refused in wire mode" in outcomes["single-tool-echo"][1]
    assert all(passed for name, (passed, _) in outcomes.items() if name not in refused)
    assert len(outcomes) - len(refused) >= 3
    unicode_case = next(c for c in doc["cases"] if c["name"] == "unicode-tool-arguments-roundtrip")
    assert unicode_case["tool_calls"][0]["result"] == "naïve café 日本語 ✓"
    assert unicode_case["requests"][0]["body"]["model"] == "gpt-test"


def test_agent_command_refuses_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With agent_command the load can tell: exit 2, one line naming the expectation and why."""
    monkeypatch.chdir(REPO)
    argv = ["run", "--suite", REGRESSION, "--agent-command", f"{sys.executable} -c pass"]
    assert main([*argv, "--tool-names", "echo"]) == 2
    err = capsys.readouterr().err
    line = next(ln for ln in err.splitlines() if "single_tool_echo.json" in ln)
    assert "$.expects.tool_arguments_contain" in line
    assert "refused in wire mode (agent_command)" in line
    assert "not what the tool received" in line
    assert main(argv) == 2  # without tool_names, only scripted tools may be named
    err = capsys.readouterr().err
    # no_tools_on_greeting's tools_not_used("echo") names a tool no one can call there: it
    # can never fail, which `harness check` warns about; it is no load error
    assert "no_tools_on_greeting.json" not in err


OUTSIDE_AGENT = """
import json, sys
from openai import OpenAI

client = OpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY come from the environment
messages = []
for line in sys.stdin:
    messages.append({"role": "user", "content": json.loads(line)["user_input"]})
    while True:
        message = client.chat.completions.create(model="any", messages=messages).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            text = json.loads(call.function.arguments).get("message", "(empty)")
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    print(json.dumps({"response": message.content}), flush=True)
"""


def test_an_outside_script_with_only_its_base_url_changed(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """agent_command in config runs a plain openai-client script against the endpoint."""
    (tmp_path / "agent.py").write_text(textwrap.dedent(OUTSIDE_AGENT))
    write_fixture(
        "a.json",
        echo_trace(
            expects={
                "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
                "exact_tool_calls": 1,
            }
        ),
    )
    write_fixture("b.json", echo_trace(model_name="fails", expects={"response_contains": ["nope"]}))
    config = tmp_path / "pyproject.toml"
    config.write_text(
        f'[tool.harness]\nsuite_dir = "suite"\nagent_command = "{sys.executable} agent.py"\n'
    )
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [(c["name"], c["passed"]) for c in doc["cases"]] == [
        ("single-tool-echo", True),
        ("fails", False),
    ]


def test_a_wrong_tool_call_id_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    """A tool result under an id no scripted call has errors the case, naming the id."""
    argv = [
        "run",
        "--suite",
        REGRESSION,
        "--agent",
        "tests.wire_agents:wrong_id_factory",
        "--format",
        "json",
    ]
    assert main(argv) == 1
    cases = {c["name"]: c for c in json.loads(capsys.readouterr().out)["cases"]}
    error = cases["single-tool-echo"]["error"]
    assert 'tool result for id "call_bogus", which no scripted call has' in error
    assert 'scripted tool call "call_1" (echo) never got a result' in error
    assert cases["smoke-greeting"]["passed"] is True


CRASHING = 'import sys\nsys.stderr.write("boom: missing config\\n")\nsys.exit(3)\n'
SILENT = "import sys, time\nfor line in sys.stdin:\n    time.sleep(30)\n"


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            CRASHING,
            "the agent process exited with status 3 without answering the turn; "
            "stderr: boom: missing config",
        ),
        (SILENT, "case timed out after 0.5s (case_timeout)"),
    ],
    ids=["crash", "silent"],
)
def test_a_crashed_or_silent_subprocess_errors_its_case(
    script: str,
    message: str,
    write_fixture: WriteFixture,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The subprocess's failure is the case's error, with its stderr or the timeout."""
    (tmp_path / "agent.py").write_text(script)
    suite = write_fixture("a.json", echo_trace()).parent
    argv = [
        "run",
        "--suite",
        str(suite),
        "--agent-command",
        f"{sys.executable} {tmp_path / 'agent.py'}",
    ]
    assert main([*argv, "--case-timeout", "0.5", "--format", "json"]) == 1
    (case,) = json.loads(capsys.readouterr().out)["cases"]
    assert case["error"].startswith(message)


def request_trace(requests: dict[str, Any]) -> dict[str, Any]:
    return echo_trace(expects={"exact_tool_calls": 1, "requests": requests})


@pytest.mark.parametrize(
    ("requests", "passed", "detail"),
    [
        (
            {
                "tools_offered": ["echo"],
                "system_prompt_contains": ["helpful"],
                "params": {"temperature": 0},
            },
            True,
            "in all 2 request(s)",
        ),
        ({"params": {"temperature": 0.7}}, False, 'request 0: "temperature" was 0'),
        ({"tools_offered": ["search"]}, False, 'request 0: not offered; tools offered: ["echo"]'),
    ],
)
def test_request_checks(
    requests: dict[str, Any],
    passed: bool,
    detail: str,
    write_fixture: WriteFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """expects.requests asserts on what the agent sent, in every request."""
    suite = write_fixture("a.json", request_trace(requests)).parent
    argv = [
        "run",
        "--suite",
        str(suite),
        "--agent",
        "tests.wire_agents:factory",
        "--format",
        "json",
    ]
    assert main(argv) == (0 if passed else 1)
    (case,) = json.loads(capsys.readouterr().out)["cases"]
    request_grades = [g for g in case["grades"] if g["check"].startswith("requests.")]
    assert request_grades[-1]["detail"] == detail


def test_request_checks_fail_without_a_wire_agent(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """In-process agents send no request, so request checks cannot pass."""
    suite = write_fixture("a.json", request_trace({"tools_offered": ["echo"]})).parent
    assert main(["run", "--suite", str(suite), "--format", "json"]) == 1
    (case,) = json.loads(capsys.readouterr().out)["cases"]
    assert case["grades"][-1]["detail"].startswith("no request was recorded")


@pytest.mark.parametrize(
    ("requests", "location", "reason"),
    [
        ({}, "$.expects.requests", "declares no request check"),
        ({"tools_offered": [""]}, "$.expects.requests.tools_offered[0]", "zero-length entry"),
        ({"tool_offered": ["echo"]}, "$.expects.requests.tool_offered", "unknown key"),
    ],
)
def test_request_checks_are_fail_closed(
    requests: dict[str, Any],
    location: str,
    reason: str,
    write_fixture: WriteFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An empty block, an empty entry or an unknown key is refused at load."""
    path = write_fixture("a.json", request_trace(requests))
    assert main(["run", "--suite", str(path.parent)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: {location}: " in err
    assert reason in err


LEAKY_AGENT = """
import json, sys
from openai import OpenAI

client = OpenAI()
system = "You are helpful. Use api_key=sk-proj-Zk3mQ9vT2xW7pL4nR8yB1cD6 for the backend."
for line in sys.stdin:
    user = {"role": "user", "content": json.loads(line)["user_input"]}
    messages = [{"role": "system", "content": system}, user]
    message = client.chat.completions.create(model="any", messages=messages).choices[0].message
    print(json.dumps({"response": message.content}), flush=True)
"""


def test_secrets_in_requests_are_redacted_in_the_report(
    write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Request bodies kept for diagnosis pass through the scrubber too."""
    (tmp_path / "agent.py").write_text(textwrap.dedent(LEAKY_AGENT))
    turns = [{"user_input": "hi", "steps": [text_step("hello")]}]
    suite = write_fixture(
        "a.json", echo_trace(turns=turns, expects={"response_contains": ["hello"]})
    ).parent
    argv = [
        "run",
        "--suite",
        str(suite),
        "--agent-command",
        f"{sys.executable} {tmp_path / 'agent.py'}",
    ]
    assert main([*argv, "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "Zk3mQ9vT2xW7pL4nR8yB1cD6" not in out
    (case,) = json.loads(out)["cases"]
    assert "api_key=sk-p*[REDACTED]" in case["requests"][0]["body"]["messages"][0]["content"]

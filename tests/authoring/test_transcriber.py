"""`harness record` proves its fixture: an echo tool whose result equals its argument, recorded
through the real `openai` and `anthropic` SDKs against a scripted upstream on loopback, gives a
fixture that the working agent passes and an agent whose tool alters its value or raises
fails, whether the results travel as tool-result messages or as text."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main

ECHOED = "mango"
FINAL = f"The echo tool said: {ECHOED}"


def _answered(body: dict[str, Any]) -> bool:
    """Whether the request carries the echo's result, in any shape."""
    text = json.dumps([body.get("messages", []), body.get("input", [])])
    return any(mark in text for mark in ('"tool"', "tool_result", "_output", "Observation:"))


def _responses(answered: bool) -> dict[str, Any]:
    item: dict[str, Any] = (
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": FINAL, "annotations": []}],
        }
        if answered
        else {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_r1",
            "name": "echo",
            "arguments": json.dumps({"message": ECHOED}),
            "status": "completed",
        }
    )
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "m",
        "status": "completed",
        "output": [item],
        "usage": {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25},
    }


def _chat(answered: bool, react: bool = False) -> dict[str, Any]:
    if answered:
        message: dict[str, Any] = {"role": "assistant", "content": FINAL}
    elif react:
        message = {"role": "assistant", "content": f"Action: echo\nAction Input: {ECHOED}"}
    else:
        arguments = json.dumps({"message": ECHOED})
        call = {
            "id": "call_e1",
            "type": "function",
            "function": {"name": "echo", "arguments": arguments},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }


def _anthropic(answered: bool) -> dict[str, Any]:
    block: dict[str, Any] = (
        {"type": "text", "text": FINAL}
        if answered
        else {"type": "tool_use", "id": "toolu_e1", "name": "echo", "input": {"message": ECHOED}}
    )
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [block],
        "stop_reason": "end_turn" if answered else "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 5},
    }


class EchoModel(BaseHTTPRequestHandler):
    """Asks for `echo("mango")`, then, given any result, says the scripted sentence."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        answered = _answered(body)
        if self.path.startswith("/v1/messages"):
            reply = _anthropic(answered)
        elif self.path.startswith("/v1/responses"):
            reply = _responses(answered)
        else:
            reply = _chat(answered, react="tools" not in body)
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-upstream-0123456789abcdefghijklmnop")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-upstream-0123456789abcdefghijklmnop")
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _record(upstream: str, out: Path, agent: str, *extra: str) -> int:
    argv = ["record", "--upstream", upstream, "--out", str(out), "--input", "Echo mango"]
    return main([*argv, "--agent", f"tests.record_agents:{agent}", *extra])


def _run(out: Path, agent: str) -> int:
    return main(["run", "--suite", str(out.parent), "--agent", f"tests.record_agents:{agent}"])


@pytest.mark.parametrize(
    "agent",
    [
        "echo_chat",
        "echo_responses",
        "echo_claude",
        "echo_chat_text",
        "echo_responses_text",
        "echo_claude_text",
        "react",
    ],
)
def test_a_recorded_echo_fails_for_a_tool_that_alters_or_raises(
    agent: str, upstream: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Green (run and check) for the working agent; red for the altered and the raising
    tool, in each protocol and style."""
    out = tmp_path / "evals" / "regression" / "echo_mango.json"
    assert _record(upstream, out, agent) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert "mutants killed\n" in said
    assert (
        f"next: harness check --suite {out.parent} --agent tests.record_agents:{agent} && " in said
    )
    assert _run(out, agent) == 0
    assert _run(out, f"{agent}_altered") == 1
    assert _run(out, f"{agent}_raises") == 1
    suite = ["check", "--suite", str(out.parent), "--agent"]
    assert main([*suite, f"tests.record_agents:{agent}"]) == 0
    assert main([*suite, f"tests.record_agents:{agent}_raises"]) == 1


@pytest.mark.parametrize(
    ("agent", "success"),
    [("echo_chat", None), ("echo_responses", None), ("echo_claude", True)],
    ids=["chat", "responses", "anthropic"],
)
def test_the_echoed_result_is_quoted_and_success_pinned_where_shown(
    agent: str, success: bool | None, upstream: str, tmp_path: Path
) -> None:
    """The result equal to the argument is quoted; all_tools_succeeded only over Anthropic."""
    out = tmp_path / "s" / "echo.json"
    assert _record(upstream, out, agent) == 0
    expects = json.loads(out.read_text())["expects"]
    assert expects["tool_results_contain"] == [{"tool": "echo", "needle": ECHOED}]
    assert expects.get("all_tools_succeeded") is success
    assert "requests" not in expects


def test_a_text_observation_gets_a_request_check(upstream: str, tmp_path: Path) -> None:
    """No tool-result message: the observation is quoted from the request that carried it."""
    out = tmp_path / "s" / "react.json"
    assert _record(upstream, out, "echo_chat_text") == 0
    expects = json.loads(out.read_text())["expects"]
    assert "tool_results_contain" not in expects
    assert expects["requests"] == {
        "conversation_contains": [{"needle": f"Observation: {ECHOED}", "turn": 0, "step": 1}]
    }


def test_a_react_scratchpad_is_gated_by_its_observation_line(upstream: str, tmp_path: Path) -> None:
    """No tool API at all: the Observation line the prompt grows by is what is checked."""
    out = tmp_path / "s" / "react.json"
    assert _record(upstream, out, "react") == 0
    expects = json.loads(out.read_text())["expects"]
    assert expects["exact_tool_calls"] == 0
    assert expects["requests"] == {
        "conversation_contains": [{"needle": f"Observation: {ECHOED}", "turn": 0, "step": 1}]
    }


def test_a_surviving_mutant_refuses_the_write_unless_allowed(
    upstream: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty result cannot be quoted: the mutant and the reason are named, exit 2."""
    out = tmp_path / "s" / "empty.json"
    assert _record(upstream, out, "echo_chat_empty") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "alter_result(0) survives: its result is empty" in err
    assert "--allow-weak" in err
    assert not out.exists()
    assert _record(upstream, out, "echo_chat_empty", "--allow-weak") == 0
    assert "(surviving: alter_result(0))" in capsys.readouterr().out
    assert out.exists()


@pytest.mark.parametrize(
    ("where", "schema"),
    [("evals/regression/a.json", "../fixture.schema.json"), ("elsewhere/a.json", None)],
    ids=["under-evals", "outside"],
)
def test_the_schema_resolves_from_where_the_fixture_is_written(
    where: str, schema: str | None, upstream: str, tmp_path: Path
) -> None:
    """`$schema` points at the nearest fixture.schema.json above the file, or is left out."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "fixture.schema.json").write_text("{}")
    out = tmp_path / where
    assert _record(upstream, out, "echo_chat") == 0
    written = json.loads(out.read_text())
    assert written.get("$schema") == schema
    if schema is not None:
        assert (out.parent / schema).resolve() == tmp_path / "evals" / "fixture.schema.json"

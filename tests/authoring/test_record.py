"""`harness record`: a real run through a fake upstream on loopback becomes a fixture that fails.

The upstream here plays a model: asked first, it calls `weather` for Paris; given the tool's
result, it answers with a sentence quoting it. It answers in the chat-completions and the
Anthropic Messages formats, as JSON or as a stream, and never touches the network.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main

UPSTREAM_KEY = "sk-upstream-0123456789abcdefghijklmnop"
CITY = "Paris"


def _tool_result(body: dict[str, Any]) -> str | None:
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            return str(message["content"])
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    return str(block["content"])
    return None


def _chat(body: dict[str, Any], result: str | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    usage = {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}
    if result is None:
        call = {
            "id": "call_w1",
            "type": "function",
            "function": {"name": "weather", "arguments": json.dumps({"city": CITY})},
        }
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish, deltas = "tool_calls", [{"role": "assistant", "tool_calls": [{"index": 0, **call}]}]
    else:
        message = {"role": "assistant", "content": f"In {CITY} right now: {result}."}
        finish, deltas = "stop", [{"role": "assistant", "content": message["content"]}]
    base = {"id": "chatcmpl-1", "created": 1, "model": "m"}
    full = {
        **base,
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }
    chunks: list[dict[str, Any]] = [
        {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": d}]}
        for d in deltas
    ]
    chunks.append(
        {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
            "usage": usage,
        }
    )
    return full, chunks


def _anthropic(result: str | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if result is None:
        block: dict[str, Any] = {
            "type": "tool_use",
            "id": "toolu_w1",
            "name": "weather",
            "input": {"city": CITY},
        }
        stop = "tool_use"
        start_block = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps({"city": CITY})}
    else:
        block = {"type": "text", "text": f"In {CITY} right now: {result}."}
        stop, start_block = "end_turn", {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 40, "output_tokens": 9},
    }
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                **message,
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 40, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": start_block},
        {"type": "content_block_delta", "index": 0, "delta": delta},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    return message, events


class FakeModel(BaseHTTPRequestHandler):
    seen_keys: list[str]
    status = 200
    location = ""
    """Where a 3xx `status` points."""
    error = "quota exceeded"
    """The message of an error `status`."""
    rewrite: Callable[[str, str], str] = staticmethod(lambda payload, key: payload)
    """What the answer's JSON text becomes, given the key the request carried."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.seen_keys.append(
            self.headers.get("authorization") or self.headers.get("x-api-key") or ""
        )
        if 300 <= self.status < 400:
            self.send_response(self.status)
            self.send_header("location", self.location)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if self.status != 200:
            error = json.dumps({"error": {"message": self.error}}).encode()
            self._send(self.status, "application/json", error)
            return
        result = _tool_result(body)
        if self.path.startswith("/v1/messages"):
            full, events = _anthropic(result)
            frames = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events]
        else:
            full, chunks = _chat(body, result)
            frames = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
        key = self.seen_keys[-1].removeprefix("Bearer ")
        if body.get("stream"):
            payload = "".join(self.rewrite(frame, key) for frame in frames)
            self._send(200, "text/event-stream", payload.encode())
        else:
            self._send(200, "application/json", self.rewrite(json.dumps(full), key).encode())

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def upstream(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[str], type[FakeModel]]]:
    seen: list[str] = []
    handler = type("Handler", (FakeModel,), {"seen_keys": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OPENAI_API_KEY", UPSTREAM_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", UPSTREAM_KEY)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen, handler
    finally:
        server.shutdown()
        server.server_close()


def record(upstream: str, out: Path, agent: str, *extra: str) -> int:
    return main(
        [
            "record",
            "--upstream",
            upstream,
            "--out",
            str(out),
            "--input",
            "Weather in Paris?",
            "--agent",
            f"tests.record_agents:{agent}",
            *extra,
        ]
    )


@pytest.mark.parametrize("agent", ["chat", "chat_streaming"])
def test_a_recorded_run_replays_green_and_fails_for_a_broken_agent(
    agent: str,
    upstream: tuple[str, list[str], type[FakeModel]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fixture scripts the real steps, replays green, and catches a dropped tool result."""
    url, seen, _ = upstream
    out = tmp_path / "evals" / "regression" / "paris_weather.json"
    assert record(url, out, agent) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert f"wrote {out}" in said
    assert "mutants killed" in said
    fixture = json.loads(out.read_text())
    first, second = fixture["turns"][0]["steps"]
    assert first["response"]["tool_calls"] == [
        {"id": "call_w1", "name": "weather", "arguments": {"city": "Paris"}}
    ]
    assert (first["response"]["input_tokens"], first["response"]["output_tokens"]) == (40, 9)
    assert second["response"]["content"] == "In Paris right now: Sunny, 21C and a light breeze."
    expects = fixture["expects"]
    assert expects["exact_tool_calls"] == 1
    assert expects["tools_used"] == ["weather"]
    assert "tool_arguments_contain" not in expects  # the wire cannot see what the tool got
    assert expects["tool_results_contain"][0]["tool"] == "weather"
    assert expects["tool_results_contain"][0]["needle"] in "Sunny, 21C and a light breeze"
    assert seen == [f"Bearer {UPSTREAM_KEY}"] * 2
    assert UPSTREAM_KEY not in out.read_text()
    suite = str(out.parent)
    assert main(["run", "--suite", suite, "--agent", f"tests.record_agents:{agent}"]) == 0
    assert main(["run", "--suite", suite, "--agent", "tests.record_agents:chat_broken"]) == 1
    assert main(["check", "--suite", suite, "--agent", f"tests.record_agents:{agent}"]) == 0
    assert main(["check", "--suite", suite, "--agent", "tests.record_agents:chat_broken"]) == 1


@pytest.mark.parametrize("agent", ["claude", "claude_streaming"])
def test_an_anthropic_run_is_recorded_and_replayed(
    agent: str,
    upstream: tuple[str, list[str], type[FakeModel]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Anthropic Messages, streamed or not: tool_use blocks become steps; the key stays home."""
    url, seen, _ = upstream
    out = tmp_path / "suite" / "paris.json"
    assert record(url, out, agent) == 0, capsys.readouterr().err
    fixture = json.loads(out.read_text())
    call = fixture["turns"][0]["steps"][0]["response"]["tool_calls"][0]
    assert call == {"id": "toolu_w1", "name": "weather", "arguments": {"city": "Paris"}}
    assert seen == [UPSTREAM_KEY] * 2
    assert UPSTREAM_KEY not in out.read_text()
    assert main(["run", "--suite", str(out.parent), "--agent", f"tests.record_agents:{agent}"]) == 0
    broken = ["run", "--suite", str(out.parent), "--agent", "tests.record_agents:claude_broken"]
    assert main(broken) == 1


def test_an_upstream_error_exits_2_and_writes_nothing(
    upstream: tuple[str, list[str], type[FakeModel]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An error status from the upstream is one line, exit 2, and no file."""
    url, _, handler = upstream
    handler.status = 429
    out = tmp_path / "x.json"
    assert record(url, out, "chat") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "429" in err[0]
    assert "quota exceeded" in err[0]
    assert not out.exists()


def test_an_unreachable_upstream_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing listening at the upstream: one line naming it, exit 2, nothing written."""
    out = tmp_path / "x.json"
    assert record("http://127.0.0.1:9/v1", out, "chat") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "cannot be reached" in err[0]
    assert not out.exists()


def test_private_data_refuses_the_write_unless_allowed(
    upstream: tuple[str, list[str], type[FakeModel]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A real-looking e-mail in the run is named and refused; --allow-private writes it."""
    url, _, _ = upstream
    out = tmp_path / "s" / "p.json"
    argv = ["record", "--upstream", url, "--out", str(out), "--agent", "tests.record_agents:chat"]
    inputs = ["--input", "Weather in Paris? Reply to jane.doe@gmail.com"]
    assert main([*argv, *inputs]) == 2
    err = capsys.readouterr().err
    assert "$.turns[0].user_input" in err
    assert "e-mail" in err
    assert not out.exists()
    assert main([*argv, *inputs, "--allow-private"]) == 0
    assert out.exists()


def test_a_redirect_is_never_followed_with_the_key(
    upstream: tuple[str, list[str], type[FakeModel]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A 3xx from the upstream is one line naming where it pointed, exit 2; the key goes
    nowhere else and nothing is written."""
    url, seen, handler = upstream
    elsewhere: list[str] = []
    other = ThreadingHTTPServer(
        ("127.0.0.1", 0), type("Other", (FakeModel,), {"seen_keys": elsewhere})
    )
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        handler.status = 302
        handler.location = f"http://127.0.0.1:{other.server_address[1]}/v1/chat/completions"
        out = tmp_path / "x.json"
        assert record(url, out, "chat") == 2
    finally:
        other.shutdown()
        other.server_close()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "302" in err[0]
    assert handler.location in err[0]
    assert seen == [f"Bearer {UPSTREAM_KEY}"]  # the upstream asked once, with the key
    assert elsewhere == []
    assert not out.exists()


def test_the_upstreams_error_text_is_redacted(
    upstream: tuple[str, list[str], type[FakeModel]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An error that echoes the key, or another credential, is one line that holds neither."""
    url, _, handler = upstream
    handler.status = 401
    handler.error = f"Incorrect API key provided: {UPSTREAM_KEY}; api_key=sk_live_abcdefghij0123"
    assert record(url, tmp_path / "x.json", "chat") == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "401" in err
    assert UPSTREAM_KEY[4:] not in err
    assert "abcdefghij0123" not in err


def test_a_key_the_upstream_reflects_is_never_written(
    upstream: tuple[str, list[str], type[FakeModel]], tmp_path: Path
) -> None:
    """Even with --allow-private, the recorder's own key is masked in the fixture, which still
    replays green."""
    url, _, handler = upstream
    handler.rewrite = staticmethod(lambda payload, key: payload.replace("right now", key))
    out = tmp_path / "reflected.json"
    assert record(url, out, "chat", "--allow-private") == 0
    text = out.read_text()
    assert UPSTREAM_KEY[4:] not in text
    assert f"{UPSTREAM_KEY[:4]}*[REDACTED]" in text
    assert main(["run", "--suite", str(tmp_path), "--agent", "tests.record_agents:chat"]) == 0


@pytest.mark.parametrize(
    ("rewrite", "said"),
    [
        (lambda payload, key: payload.replace("Sunny", "\\ud800Sunny"), "lone surrogate"),
        (
            lambda payload, key: payload.replace(
                '"completion_tokens": 9', f'"completion_tokens": {2**70}'
            ),
            "token count",
        ),
        (
            lambda payload, key: payload.replace(
                '"completion_tokens": 9', '"completion_tokens": 1e400'
            ),
            "token count",
        ),
    ],
    ids=["lone surrogate", "2**70 tokens", "infinite tokens"],
)
def test_an_answer_no_fixture_can_hold_is_one_line(
    upstream: tuple[str, list[str], type[FakeModel]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rewrite: Callable[[str, str], str],
    said: str,
) -> None:
    """A lone surrogate or an absurd token count from the upstream: exit 2, one line, no file."""
    url, _, handler = upstream
    handler.rewrite = staticmethod(rewrite)
    out = tmp_path / "x.json"
    assert record(url, out, "chat") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert said in err[0]
    assert not out.exists()

"""The replay endpoint against careless and hostile HTTP: every request gets an answer that
names its problem, in the protocol's error shape, and the next request is still served."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from harness.replay.endpoint import MAX_REQUEST_BYTES, ReplayServer
from harness.replay.session import WireSession
from tests.builders import replay_session


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    served = ReplayServer(read_timeout=0.5)
    yield served
    served.close()


@pytest.fixture
def session(server: ReplayServer) -> Iterator[WireSession]:
    opening, _ = replay_session(server)
    with opening as opened:
        yield opened


def exchange(server: ReplayServer, raw: bytes) -> tuple[int, dict[str, str], Any]:
    """Send raw bytes on a fresh connection; the status, headers and JSON body answered."""
    host, port = server.url.removeprefix("http://").split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("iso-8859-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, json.loads(body) if body else None


def post(path: str, key: str, body: bytes, *headers: str) -> bytes:
    lines = [
        f"POST {path} HTTP/1.1",
        "Host: x",
        f"Authorization: Bearer {key}",
        "Connection: close",
        *headers,
    ]
    if not any(h.lower().startswith(("content-length", "transfer-encoding")) for h in headers):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


CHAT = "/v1/chat/completions"
MESSAGES = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()


def test_a_chunked_body_is_read_whole(server: ReplayServer, session: WireSession) -> None:
    """Transfer-Encoding: chunked is decoded, not read as `{}`."""
    chunks = b"".join(
        f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (MESSAGES[:10], MESSAGES[10:])
    )
    raw = post(CHAT, session.api_key, chunks + b"0\r\n\r\n", "Transfer-Encoding: chunked")
    status, _, answer = exchange(server, raw)
    assert status == 200
    assert answer["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"
    assert session.requests[-1]["body"]["messages"][0]["content"] == "hi"


@pytest.mark.parametrize(
    ("headers", "body", "problem"),
    [
        (("Content-Length: -5",), b"", "Content-Length '-5' is not a non-negative integer"),
        (("Content-Length: ten",), b"", "Content-Length 'ten' is not a non-negative integer"),
        ((f"Content-Length: {MAX_REQUEST_BYTES + 1}",), b"", "request body over"),
        (("Transfer-Encoding: chunked",), b"zz\r\n", "malformed chunked request body"),
        ((), b"{not json", "request body is not JSON"),
        ((), b"[1, 2]", "request body must be a JSON object"),
    ],
    ids=["negative-length", "text-length", "over-limit", "bad-chunk", "not-json", "not-object"],
)
def test_a_bad_body_is_a_400_naming_it(
    headers: tuple[str, ...], body: bytes, problem: str, server: ReplayServer, session: WireSession
) -> None:
    """Bad lengths and bodies get a 400 that names the problem, and are kept with it."""
    status, got, answer = exchange(server, post(CHAT, session.api_key, body, *headers))
    assert (status, got.get("x-should-retry")) == (400, "false")
    assert problem in answer["error"]["message"]
    assert session.requests[-1] == {"path": CHAT, "status": 400, "body": None}


@pytest.mark.parametrize(
    ("path", "extra", "problem"),
    [
        (CHAT, {"n": 2}, '"n": 2 asks for several choices'),
        (CHAT, {"logprobs": True}, '"logprobs" cannot be replayed'),
        (CHAT, {"stream_options": "yes"}, '"stream_options" must be an object, not str'),
        ("/v1/responses", {"stream_options": [1]}, '"stream_options" must be an object'),
        ("/v1/responses", {"previous_response_id": "resp_1"}, '"previous_response_id" is not'),
    ],
    ids=["n", "logprobs", "stream-options", "responses-stream-options", "previous-response-id"],
)
def test_what_cannot_be_honoured_is_refused_before_a_reply_is_used(
    path: str, extra: dict[str, Any], problem: str, server: ReplayServer, session: WireSession
) -> None:
    """A 400 naming the parameter; the script's first reply is still there for the next call."""
    body = json.dumps({**json.loads(MESSAGES), **extra}).encode()
    status, _, answer = exchange(server, post(path, session.api_key, body))
    assert status == 400
    assert problem in answer["error"]["message"]
    status, _, answer = exchange(server, post(CHAT, session.api_key, MESSAGES))
    assert answer["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"
    assert [r["status"] for r in session.requests] == [400, 200]


def test_unknown_paths_are_404_in_the_protocols_shape(
    server: ReplayServer, session: WireSession
) -> None:
    """OpenAI shape for OpenAI-looking requests, Anthropic's for Anthropic ones; kept."""
    status, _, answer = exchange(server, post("/v1/embeddings", session.api_key, b"{}"))
    assert (status, answer["error"]["code"]) == (404, "not_found")
    raw = post("/v1/v1/messages", session.api_key, b"{}", "anthropic-version: 2023-06-01")
    status, _, answer = exchange(server, raw)
    assert (status, answer["type"], answer["error"]["type"]) == (404, "error", "not_found_error")
    assert "without /v1" in answer["error"]["message"]
    assert [(r["path"], r["status"]) for r in session.requests] == [
        ("/v1/embeddings", 404),
        ("/v1/v1/messages", 404),
    ]


def test_routes_ignore_the_query_and_take_x_api_key(
    server: ReplayServer, session: WireSession
) -> None:
    """`/v1/messages?beta=true` with `x-api-key` is served (anthropic 0.x clients send it)."""
    body = json.dumps({"model": "m", "max_tokens": 5, "messages": []}).encode()
    raw = (
        "POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        f"x-api-key: {session.api_key}\r\nanthropic-version: 2023-06-01\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    status, _, answer = exchange(server, raw)
    assert (status, answer["stop_reason"], answer["content"][0]["id"]) == (
        200,
        "tool_use",
        "call_1",
    )


def test_a_wrong_key_is_a_401_kept_by_the_only_open_case(
    server: ReplayServer, session: WireSession
) -> None:
    """In the protocol's shape (Anthropic's for an x-api-key request); with one case open,
    the request is kept in its report."""
    raw = post(CHAT, "nope", MESSAGES)
    assert exchange(server, raw)[2]["error"]["code"] == "invalid_api_key"
    raw = post("/v1/messages", "nope", b"{}", "x-api-key: nope")
    status, _, answer = exchange(server, raw)
    assert (status, answer["error"]["type"]) == (401, "authentication_error")
    assert [(r["path"], r["status"]) for r in session.requests] == [
        (CHAT, 401),
        ("/v1/messages", 401),
    ]
    assert session.requests[0]["body"]["model"] == "m"


def test_a_bare_http_09_line_is_answered_and_closed(server: ReplayServer) -> None:
    """`GET /` with no version gets a 400 (with a status line) and the socket is closed."""
    status, _, answer = exchange(server, b"GET /\r\n")
    assert status == 400
    assert "HTTP/0.9" in answer["error"]["message"]


@pytest.mark.parametrize(
    "line", [b"GARBAGE\r\n", b"GET / FTP/1.0\r\n"], ids=["one-word", "bad-version"]
)
def test_a_malformed_request_line_gets_a_status_line(server: ReplayServer, line: bytes) -> None:
    """Not a bare body with no status: a 400 any client can read."""
    host, port = server.url.removeprefix("http://").split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(line)
        sock.shutdown(socket.SHUT_WR)
        data = sock.recv(65536)
    assert data.startswith(b"HTTP/1.1 400 ")


def test_an_idle_socket_is_closed_after_the_read_timeout(server: ReplayServer) -> None:
    """A client that sends half a request line and waits is disconnected, freeing the thread."""
    host, port = server.url.removeprefix("http://").split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"POST /v1/chat/comp")
        assert sock.recv(1024) == b""  # the server hung up; no reply was ever started


RESPONSES_PATH, MESSAGES_PATH = "/v1/responses", "/v1/messages"
ANTHROPIC_BASE = {"model": "m", "max_tokens": 5}
MALFORMED = [
    (CHAT, b"{}", "missing required field `model`"),
    (CHAT, b"", "request body is empty"),
    (CHAT, b'{"model": "m", "messages": "hi"}', "at `$.messages`"),
    (CHAT, b'{"model": "m", "messages": [{"role": "tool", "content": "x"}]}', "tool_call_id"),
    (CHAT, MESSAGES[:-1] + b', "temperature": "hot"}', "at `$.temperature`"),
    (RESPONSES_PATH, b"{}", "missing required field `input`"),
    (RESPONSES_PATH, b"", "request body is empty"),
    (RESPONSES_PATH, b'{"input": 5}', "at `$.input`"),
    (RESPONSES_PATH, b'{"input": "hi", "instructions": 5}', "at `$.instructions`"),
    (RESPONSES_PATH, b'{"input": [{"type": "function_call_output", "output": "x"}]}', "call_id"),
    (MESSAGES_PATH, b"{}", "missing required field"),
    (MESSAGES_PATH, b"", "request body is empty"),
    (
        MESSAGES_PATH,
        json.dumps({**ANTHROPIC_BASE, "messages": [], "system": 5}).encode(),
        "$.system",
    ),
    (MESSAGES_PATH, b'{"model": "m", "messages": []}', "`max_tokens`"),
    (MESSAGES_PATH, b'{"model": "m", "max_tokens": true, "messages": []}', "$.max_tokens"),
    (
        MESSAGES_PATH,
        json.dumps(
            {**ANTHROPIC_BASE, "messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}
        ).encode(),
        "tool_use_id",
    ),
]


@pytest.mark.parametrize(
    ("path", "body", "problem"),
    MALFORMED,
    ids=[f"{path.rsplit('/', 1)[1]}-{index}" for index, (path, _, _) in enumerate(MALFORMED)],
)
def test_a_malformed_request_is_a_400_in_its_shape_before_a_reply_is_used(
    path: str, body: bytes, problem: str, server: ReplayServer, session: WireSession
) -> None:
    """What the protocol's SDK would never send is refused; the first reply is still there."""
    extra = ("anthropic-version: 2023-06-01",) if path == MESSAGES_PATH else ()
    status, headers, answer = exchange(server, post(path, session.api_key, body, *extra))
    assert (status, headers["Content-Type"]) == (400, "application/json")
    assert problem in answer["error"]["message"]
    shape = answer["type"] if path == MESSAGES_PATH else answer["error"]["type"]
    assert shape == ("error" if path == MESSAGES_PATH else "invalid_request_error")
    status, _, answer = exchange(server, post(CHAT, session.api_key, MESSAGES))
    assert answer["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"


def test_a_post_without_a_length_is_a_411(server: ReplayServer, session: WireSession) -> None:
    """No Content-Length and no chunking: answered at once, not read until the socket closes."""
    raw = post(CHAT, session.api_key, b"", "Content-Type: application/json")
    raw = raw.replace(b"Content-Length: 0\r\n", b"")
    status, _, answer = exchange(server, raw)
    assert status == 411
    assert "needs Content-Length" in answer["error"]["message"]


def test_a_deeply_nested_body_is_a_400(server: ReplayServer, session: WireSession) -> None:
    """5,000 nested arrays exceed the parser's recursion: a 400, not a dropped connection."""
    body = b'{"model": "m", "messages": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    status, _, answer = exchange(server, post(CHAT, session.api_key, body))
    assert status == 400
    assert "nested too deeply" in answer["error"]["message"]


def test_a_get_to_an_unknown_path_is_a_404(server: ReplayServer) -> None:
    """Any path but the models list is a JSON 404."""
    status, headers, answer = exchange(server, b"GET /v1/nothing HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (status, headers["Content-Type"]) == (404, "application/json")
    assert answer["error"]["code"] == "not_found"


def test_an_unknown_method_is_answered_in_json(server: ReplayServer) -> None:
    """The server's own refusals (here a 501) are JSON in the protocol's shape, not HTML."""
    status, headers, answer = exchange(server, b"PUT /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (status, headers["Content-Type"]) == (501, "application/json")
    assert answer["type"] == "error"


def test_a_failing_handler_is_a_500_without_a_traceback(
    server: ReplayServer,
    session: WireSession,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A defect while serving is answered in the protocol's shape; stderr stays empty."""

    def broken(*_: Any) -> Any:
        raise KeyError("boom")

    monkeypatch.setattr(session, "serve", broken)
    status, _, answer = exchange(server, post(CHAT, session.api_key, MESSAGES))
    assert (status, answer["error"]["type"]) == (500, "server_error")
    assert "KeyError" in answer["error"]["message"]
    assert capfd.readouterr().err == ""

"""The replay endpoint answers every request, at once and in the shape of the protocol it
speaks: unknown paths, bodies of no stated length and bad bodies to unknown paths included."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from harness.replay.endpoint import ReplayServer
from harness.replay.session import WireSession
from tests.builders import replay_session

CHAT = "/v1/chat/completions"
MESSAGES = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
ANTHROPIC_HEADER = "anthropic-version: 2023-06-01"


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    # An idle socket is kept far longer than a client below waits: an answer that only comes
    # when the server gives up on the socket fails the test.
    served = ReplayServer(read_timeout=120)
    yield served
    served.close()


@pytest.fixture
def session(server: ReplayServer) -> Iterator[WireSession]:
    opening, _ = replay_session(server)
    with opening as opened:
        yield opened


def ask(
    server: ReplayServer, head: list[str], body: bytes = b""
) -> tuple[int, dict[str, str], Any]:
    """One request on a connection the client keeps open; the status, headers and JSON body.

    The client never half-closes: a server that waits for more of the body than was sent, or
    sends no answer, leaves the client waiting until its own timeout, and the test fails.
    """
    host, port = server.url.removeprefix("http://").split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(("\r\n".join([*head, "Host: x", "", ""])).encode() + body)
        data = b""
        while b"\r\n\r\n" not in data:
            data += _received(sock)
        head_bytes, _, rest = data.partition(b"\r\n\r\n")
        lines = head_bytes.decode("iso-8859-1").split("\r\n")
        headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}
        while len(rest) < int(headers["content-length"]):
            rest += _received(sock)
    return int(lines[0].split()[1]), headers, json.loads(rest)


def _received(sock: socket.socket) -> bytes:
    chunk = sock.recv(65536)
    assert chunk, "the server closed the connection without a whole answer"
    return chunk


def test_a_get_to_an_unknown_path_is_a_404_in_the_openai_shape(server: ReplayServer) -> None:
    """Not left unanswered: the error names the path, as JSON."""
    status, headers, answer = ask(server, ["GET /v1/nothing HTTP/1.1"])
    assert (status, headers["content-type"]) == (404, "application/json")
    assert answer["error"]["code"] == "not_found"
    assert answer["error"]["message"] == "no route /v1/nothing"


def test_a_get_from_an_anthropic_client_is_answered_in_its_shape(server: ReplayServer) -> None:
    """`anthropic-version` marks an Anthropic client: its error shape, `type: error`."""
    status, _, answer = ask(server, ["GET /v1/nothing HTTP/1.1", ANTHROPIC_HEADER])
    assert (status, answer["type"], answer["error"]["type"]) == (404, "error", "not_found_error")


def test_the_model_list_is_json(server: ReplayServer) -> None:
    """`GET /v1/models` (and `/models`) lists the replay model, with its Content-Type."""
    for path in ("/v1/models", "/models/"):
        status, headers, answer = ask(server, [f"GET {path} HTTP/1.1"])
        assert (status, headers["content-type"]) == (200, "application/json")
        assert [model["object"] for model in answer["data"]] == ["model"]


def test_a_served_reply_says_it_is_json(server: ReplayServer, session: WireSession) -> None:
    """A scripted reply carries `Content-Type: application/json`, and no retry hint."""
    head = [f"POST {CHAT} HTTP/1.1", f"Authorization: Bearer {session.api_key}"]
    status, headers, answer = ask(server, [*head, f"Content-Length: {len(MESSAGES)}"], MESSAGES)
    assert (status, headers["content-type"]) == (200, "application/json")
    assert "x-should-retry" not in headers
    assert answer["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"


def test_a_post_without_content_length_is_a_411_at_once(
    server: ReplayServer, session: WireSession
) -> None:
    """Its end is unknown, so it is not waited for: a 411 naming the header, kept, and closed."""
    head = [f"POST {CHAT} HTTP/1.1", f"Authorization: Bearer {session.api_key}"]
    status, headers, answer = ask(server, head, MESSAGES)
    assert (status, headers["content-type"], headers["connection"]) == (
        411,
        "application/json",
        "close",
    )
    assert answer["error"]["code"] == "length_required"
    assert "Content-Length" in answer["error"]["message"]
    assert session.requests[-1] == {"path": CHAT, "status": 411, "body": None}


def test_a_post_without_content_length_from_anthropic_is_a_411_in_its_shape(
    server: ReplayServer, session: WireSession
) -> None:
    """An Anthropic request gets Anthropic's error shape for the same refusal."""
    head = ["POST /v1/messages HTTP/1.1", f"x-api-key: {session.api_key}", ANTHROPIC_HEADER]
    status, _, answer = ask(server, head, MESSAGES)
    assert (status, answer["type"], answer["error"]["type"]) == (
        411,
        "error",
        "invalid_request_error",
    )


@pytest.mark.parametrize(
    ("extra", "shape"),
    [
        ((), "openai"),
        ((ANTHROPIC_HEADER,), "anthropic"),
        (("x-api-key: nope",), "anthropic"),
    ],
    ids=["openai", "anthropic-version", "x-api-key"],
)
def test_a_bad_body_to_an_unknown_path_is_a_400_in_the_guessed_shape(
    extra: tuple[str, ...], shape: str, server: ReplayServer
) -> None:
    """No route to take the shape from: the headers decide it, and the handler answers."""
    body = b"{not json"
    head = ["POST /v1/embeddings HTTP/1.1", *extra, f"Content-Length: {len(body)}"]
    status, headers, answer = ask(server, head, body)
    assert (status, headers["content-type"], headers["x-should-retry"]) == (
        400,
        "application/json",
        "false",
    )
    assert "request body is not JSON" in answer["error"]["message"]
    if shape == "anthropic":
        assert (answer["type"], answer["error"]["type"]) == ("error", "invalid_request_error")
    else:
        assert (answer.get("type"), answer["error"]["type"]) == (None, "invalid_request_error")


def test_a_bad_body_to_the_messages_path_is_answered_as_anthropic(server: ReplayServer) -> None:
    """The Messages route speaks Anthropic's shape even with an OpenAI-style key header."""
    body = b"[1]"
    head = ["POST /v1/messages HTTP/1.1", "Authorization: Bearer k", f"Content-Length: {len(body)}"]
    status, _, answer = ask(server, head, body)
    assert (status, answer["type"]) == (400, "error")
    assert answer["error"]["message"] == "request body must be a JSON object"


def test_an_anthropic_request_to_an_unknown_path_is_a_404_in_its_shape(
    server: ReplayServer, session: WireSession
) -> None:
    """`x-api-key` alone marks it Anthropic's; the request is kept with its 404."""
    head = ["POST /v1/complete HTTP/1.1", f"x-api-key: {session.api_key}", "Content-Length: 2"]
    status, _, answer = ask(server, head, b"{}")
    assert (status, answer["type"], answer["error"]["type"]) == (404, "error", "not_found_error")
    assert session.requests[-1]["status"] == 404


def test_a_chunked_body_with_trailers_is_answered_on_a_kept_connection(
    server: ReplayServer, session: WireSession
) -> None:
    """The trailers end at the blank line, not at the end of the connection."""
    chunks = f"{len(MESSAGES):x}\r\n".encode() + MESSAGES + b"\r\n0\r\nX-Trailer: 1\r\n\r\n"
    head = [
        f"POST {CHAT} HTTP/1.1",
        f"Authorization: Bearer {session.api_key}",
        "Transfer-Encoding: chunked",
    ]
    status, _, answer = ask(server, head, chunks)
    assert status == 200
    assert answer["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"


def test_a_chat_completions_stream_has_data_lines_only(
    server: ReplayServer, session: WireSession
) -> None:
    """Server-sent events as OpenAI sends them: `data:` lines, no `event:`, then `[DONE]`."""
    body = json.dumps({**json.loads(MESSAGES), "stream": True}).encode()
    head = [
        f"POST {CHAT} HTTP/1.1",
        "Host: x",
        f"Authorization: Bearer {session.api_key}",
        f"Content-Length: {len(body)}",
    ]
    host, port = server.url.removeprefix("http://").split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(("\r\n".join([*head, "", ""])).encode() + body)
        data = b""
        while chunk := sock.recv(65536):  # the stream's end closes the connection
            data += chunk
    head_bytes, _, events = data.partition(b"\r\n\r\n")
    assert b"Content-Type: text/event-stream" in head_bytes
    assert events.startswith(b"data: {")
    assert b"event:" not in events
    assert events.endswith(b"data: [DONE]\n\n")


def test_the_serving_thread_never_keeps_the_process_alive() -> None:
    """A daemon thread: a process whose endpoint is never closed still exits when done."""
    before = set(threading.enumerate())
    served = ReplayServer()
    try:
        (serving,) = [thread for thread in threading.enumerate() if thread not in before]
        assert (serving.name, serving.daemon) == ("harness-wire", True)
    finally:
        served.close()

"""The replay endpoint: one loopback HTTP server that speaks each wire protocol.

An agent in any language or framework is replayed unmodified by pointing its base URL at
`ReplayServer.url` (OpenAI clients, ending in `/v1`) or `ReplayServer.anthropic_url`
(Anthropic clients, the host alone). Each case gets a `WireSession` with its own API key,
taken from `Authorization: Bearer` or `x-api-key`, so a request is always served from (and
recorded into) the case that made it, with `--jobs` too. A reused agent process keeps one key
for its life, under which the case it is playing now is served. Routes ignore the query string:

- `POST /v1/chat/completions`, `POST /v1/responses`, `POST /v1/messages`: the next reply, in
  that protocol's format, whole or as server-sent events with `"stream": true`;
- `GET /v1/models` lists the one replay model.

The HTTP is made robust against what agents (and attackers) send: chunked bodies are read
whole; a body that is empty, not JSON, nested too deeply, over the limit, or has a bad
`Content-Length` is a 400 naming the problem (no `Content-Length` and no chunking: a 411); a
request its protocol's SDK would not send (a required key missing, a key of the wrong type:
`harness.replay.wire_types`) or a parameter the replay cannot honour (`n > 1`, logprobs,
`previous_response_id`, a non-object `stream_options`) is a 400 before any reply is used up;
a failure of the harness itself is a 500 in the protocol's shape, never a traceback;
an unknown path is a 404 in the protocol's error shape; idle sockets time out, so slow
clients cannot hold threads forever; a bare HTTP/0.9 request line gets a 400 and is closed.
Replayed errors carry `x-should-retry: false`, so no client retries into the script.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from harness.errors import WireRequestError
from harness.messages import ModelReply, Observer
from harness.replay.anthropic import ANTHROPIC
from harness.replay.chat_completions import CHAT_COMPLETIONS
from harness.replay.loopback import GuardedHandler, LoopbackServer
from harness.replay.protocol import MODEL_ID, ROUTES, WireProtocol
from harness.replay.responses import RESPONSES
from harness.replay.session import ReplySource, RequestGuard, WireSession

__all__ = [
    "MAX_REQUEST_BYTES",
    "READ_TIMEOUT",
    "ReplayServer",
    "forget_shared_server",
    "shared_server",
]

MAX_REQUEST_BYTES = 32 * 1024 * 1024
"""The largest request body read."""

READ_TIMEOUT = 30.0
"""Seconds a socket may sit idle (or trickle a request) before the server closes it."""

_BY_NAME: dict[str, WireProtocol] = {
    protocol.name: protocol for protocol in (CHAT_COMPLETIONS, RESPONSES, ANTHROPIC)
}
_ROUTES = {path: _BY_NAME[name] for path, name in ROUTES.items()}


class ReplayServer:
    """The endpoint, on 127.0.0.1 and a free port, serving whichever sessions are open."""

    def __init__(self, read_timeout: float = READ_TIMEOUT) -> None:
        self._sessions: dict[str, WireSession] = {}
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"server_state": self, "timeout": read_timeout})
        self._httpd = LoopbackServer(handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="harness-wire", daemon=True
        )
        self._thread.start()

    @property
    def anthropic_url(self) -> str:
        """The base URL an Anthropic client takes (the host alone: it adds `/v1/messages`)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes (it ends in `/v1`)."""
        return f"{self.anthropic_url}/v1"

    @contextmanager
    def session(
        self,
        name: str,
        source: ReplySource,
        observer: Observer,
        turn: Callable[[], int] = lambda: 0,
        *,
        record: bool = True,
        api_key: str | None = None,
        guard: RequestGuard | None = None,
    ) -> Iterator[WireSession]:
        """Serve one case while the block runs (`record` off: its spans record the calls).

        `api_key` is the key it is served under (None: a new one); a reused agent process
        keeps one key, served to whichever of its cases is open. `guard` checks each request.
        """
        session = WireSession(
            name, source, observer, turn, record=record, api_key=api_key, guard=guard
        )
        with self._lock:
            self._sessions[session.api_key] = session
        try:
            yield session
        finally:
            with self._lock:
                self._sessions.pop(session.api_key, None)

    def find(self, api_key: str) -> WireSession | None:
        """The open session an API key belongs to."""
        with self._lock:
            return self._sessions.get(api_key)

    def only(self) -> WireSession | None:
        """The one open session, if exactly one is: a request with a wrong key is its case's."""
        with self._lock:
            sessions = list(self._sessions.values())
        return sessions[0] if len(sessions) == 1 else None

    def close(self) -> None:
        """Stop serving."""
        self._httpd.shutdown()
        self._httpd.server_close()


_shared: ReplayServer | None = None
_shared_lock = threading.Lock()


def forget_shared_server() -> None:
    """In a forked child: drop the parent's endpoint, whose serving thread was not forked."""
    global _shared, _shared_lock
    _shared, _shared_lock = None, threading.Lock()


def shared_server() -> ReplayServer:
    """This process's endpoint, started on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ReplayServer()
        return _shared


class _Handler(GuardedHandler):
    server_state: ReplayServer
    raw_requestline: bytes
    server_version = "harness-replay"
    protocol_version = "HTTP/1.1"  # keep-alive, as every client expects
    default_request_version = "HTTP/1.0"  # a malformed request line still gets a status line

    def parse_request(self) -> bool:
        """Refuse a bare HTTP/0.9 line (no version) with a 400 and close."""
        self.requestline = self.raw_requestline.decode("iso-8859-1").rstrip("\r\n")
        words = self.requestline.split()
        if len(words) == 2:
            self.request_version = "HTTP/1.0"
            self.close_connection = True
            self.command, self.path = words
            self._json(400, _guess(self).error(400, "HTTP/0.9 is not supported", "bad_request"))
            return False
        return super().parse_request()

    def fail(self, status: int, message: str) -> None:
        """An error in the shape of the protocol the request speaks."""
        path = urlsplit(getattr(self, "path", "")).path.rstrip("/")
        self._error(_ROUTES.get(path) or _guess(self), status, message, "harness_error")

    def get(self) -> None:
        if urlsplit(self.path).path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "harness"}
            self._json(200, {"object": "list", "data": [model]})
        else:
            self._no_route(None)

    def post(self) -> None:
        path = urlsplit(self.path).path
        protocol = _ROUTES.get(path.rstrip("/"))
        session = self.server_state.find(_api_key(self))
        try:
            body = self._body()
        except WireRequestError as exc:
            self.close_connection = True  # the rest of the body, if any, is never read
            if session is not None:
                session.keep(path, exc.status, None)
            code = "length_required" if exc.status == 411 else "invalid_request"
            self._error(protocol or _guess(self), exc.status, str(exc), code)
            return
        if session is None:
            sole = self.server_state.only()
            if sole is not None:  # kept for diagnosis where it can only be that case's
                sole.keep(path, 401, body)
            message = "unknown API key: use the key the harness gave this case"
            self._error(protocol or _guess(self), 401, message, "invalid_api_key")
            return
        if protocol is None:
            session.keep(path, 404, body)
            self._no_route(session)
            return
        problem = protocol.problem(body)
        if problem is not None:
            session.keep(path, 400, body)
            self._error(protocol, 400, problem, "unsupported_parameter")
            return
        outcome = session.serve(protocol, path, body)
        if isinstance(outcome, str):
            self._error(protocol, 400, outcome, "harness_replay_exhausted")
        elif body.get("stream") is True:
            self._stream(protocol, *outcome, body)
        else:
            self._json(200, protocol.reply(outcome[0], body, outcome[1]))

    def _no_route(self, session: WireSession | None) -> None:
        hint = ""
        if self.path.startswith("/v1/v1/"):
            hint = " (an Anthropic base URL is the host alone, without /v1)"
        message = f"no route {urlsplit(self.path).path}{hint}"
        self._error(_guess(self), 404, message, "not_found")

    def _body(self) -> dict[str, Any]:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raw = self._chunked()
        elif self.headers.get("Content-Length") is None:  # its end is unknown: never wait for it
            raise WireRequestError(
                "a request body needs Content-Length (or Transfer-Encoding: chunked)", 411
            )
        else:
            raw = self.rfile.read(_length(self.headers["Content-Length"]))
        if not raw.strip():
            raise WireRequestError("request body is empty: send the request as a JSON object")
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise WireRequestError(f"request body is not JSON: {exc}") from None
        except RecursionError:
            raise WireRequestError("request body is nested too deeply") from None
        if not isinstance(body, dict):
            raise WireRequestError("request body must be a JSON object")
        return body

    def _chunked(self) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise WireRequestError("malformed chunked request body") from None
            if size < 0 or total + size > MAX_REQUEST_BYTES:
                raise WireRequestError(f"request body over {MAX_REQUEST_BYTES} bytes")
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(parts)
            parts.append(self.rfile.read(size))
            total += size
            self.rfile.readline(1024)  # the CRLF after the chunk

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status >= 400:
            self.send_header("x-should-retry", "false")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def _error(self, protocol: WireProtocol, status: int, message: str, code: str) -> None:
        self._json(status, protocol.error(status, message, code))

    def _stream(
        self, protocol: WireProtocol, reply_id: str, reply: ModelReply, body: dict[str, Any]
    ) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # the end of the body is the end of the stream
        self.end_headers()
        self.close_connection = True
        for name, data in protocol.events(reply_id, body, reply):
            head = f"event: {name}\n".encode() if name else b""
            self.wfile.write(head + b"data: " + json.dumps(data).encode() + b"\n\n")
        if protocol.done_marker:
            self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _length(header: str) -> int:
    """A request's `Content-Length`: a non-negative integer within the limit."""
    if not header.strip():
        raise WireRequestError(
            "a request body needs Content-Length (or Transfer-Encoding: chunked)", 411
        )
    text = header.strip()
    if not text.isdigit():
        raise WireRequestError(f"Content-Length {header[:40]!r} is not a non-negative integer")
    length = int(text)
    if length > MAX_REQUEST_BYTES:
        raise WireRequestError(f"request body over {MAX_REQUEST_BYTES} bytes")
    return length


def _api_key(handler: BaseHTTPRequestHandler) -> str:
    key = handler.headers.get("x-api-key")
    if key:
        return key.strip()
    scheme, _, token = handler.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _guess(handler: BaseHTTPRequestHandler) -> WireProtocol:
    """The protocol a request without a route most likely speaks, for its error's shape."""
    headers = getattr(handler, "headers", None)
    anthropic = headers is not None and (
        headers.get("x-api-key") is not None or headers.get("anthropic-version") is not None
    )
    if anthropic or "/messages" in getattr(handler, "path", ""):
        return ANTHROPIC
    return CHAT_COMPLETIONS

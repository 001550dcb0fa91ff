"""The replay endpoint's proxy mode: forward an agent's model requests to a real upstream.

`harness record` points an agent at this loopback server instead of the scripted replay. Each
`POST` to a model path (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`) is sent on to
the upstream with the recorder's own key, and the upstream's answer is passed back to the
agent unchanged, streamed or not. Every exchange is kept, in order, for the recorder to turn
into a fixture.

The upstream key is read from the recorder's environment (`OPENAI_API_KEY` for OpenAI paths,
`ANTHROPIC_API_KEY` for Anthropic's) and only ever sent upstream: the agent gets a placeholder
key, no exchange keeps a request header, and every output masks the key
(`harness.masking.hold`). A redirect is never followed, since following it would send the key
to another address: a 3xx answer fails the exchange, naming where it pointed. The upstream's
error text is redacted before it is kept. A request this server cannot handle is answered
with a 4xx or 5xx in the protocol's own error shape, and nothing is printed.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import msgspec

from harness.masking import hold, redact
from harness.text import one_line

__all__ = ["ANTHROPIC_PATH", "PLACEHOLDER_KEY", "Exchange", "ProxyServer", "protocol_of"]

CHAT_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"
ANTHROPIC_PATH = "/v1/messages"
PLACEHOLDER_KEY = "harness-record"
"""The key the agent is given: the upstream key never leaves the recorder's process."""
MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_RESPONSE_BYTES = 64 * 1024 * 1024
_PROTOCOLS = {CHAT_PATH: "chat", RESPONSES_PATH: "responses", ANTHROPIC_PATH: "anthropic"}
# Headers the upstream needs to understand the request; authentication is set here, never
# passed through from the agent.
_FORWARDED = ("content-type", "anthropic-version", "anthropic-beta", "accept", "openai-beta")


def protocol_of(path: str) -> str | None:
    """`chat`, `responses` or `anthropic` for a model path (query string ignored), else None."""
    return _PROTOCOLS.get(path.split("?", 1)[0].rstrip("/"))


class Exchange(msgspec.Struct, frozen=True, kw_only=True):
    """One model request the agent made, and what the upstream answered."""

    protocol: str
    """`chat`, `responses` or `anthropic`."""
    request: Any
    """The request body, as JSON."""
    status: int
    """The upstream's HTTP status (0: the upstream could not be reached)."""
    body: bytes
    """The upstream's answer as sent: JSON, or server-sent events when streamed."""
    streamed: bool
    """Whether the answer was an event stream."""
    error: str | None = None
    """Why the exchange failed, in one line (unreachable, timed out, an error status)."""


class ProxyServer:
    """A loopback server that forwards model requests to `upstream` and keeps each exchange."""

    def __init__(
        self, upstream: str, *, timeout: float = 120.0, env: Mapping[str, str] | None = None
    ) -> None:
        self.upstream = upstream.rstrip("/").removesuffix("/v1")
        """The upstream's root: paths are sent on as the agent wrote them (`/v1/...`)."""
        self.timeout = timeout
        self._env = os.environ if env is None else env
        for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            hold(self._env.get(name, ""))
        self.exchanges: list[Exchange] = []
        self._lock = threading.Condition()
        self._in_flight = 0
        handler = type("Handler", (_Handler,), {"proxy": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="harness-proxy", daemon=True
        )
        self._thread.start()

    @property
    def root(self) -> str:
        """`http://127.0.0.1:PORT`: Anthropic clients take this as their base URL."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes (it ends in `/v1`)."""
        return f"{self.root}/v1"

    def close(self) -> None:
        """Stop serving."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ProxyServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def begin(self) -> None:
        """A request came in; `keep` ends it."""
        with self._lock:
            self._in_flight += 1

    def keep(self, exchange: Exchange) -> None:
        """Add one exchange, in the order the agent made them."""
        with self._lock:
            self.exchanges.append(exchange)
            self._in_flight -= 1
            self._lock.notify_all()

    def settled(self, timeout: float = 10.0) -> int:
        """The number of exchanges once none is in flight.

        The agent may read the end of an answer before this server has noted the exchange;
        a turn's exchanges are counted only once all of them are kept.
        """
        with self._lock:
            self._lock.wait_for(lambda: self._in_flight == 0, timeout)
            return len(self.exchanges)

    def headers_for(self, protocol: str, incoming: Mapping[str, str]) -> dict[str, str]:
        """The upstream request's headers: the needed ones of the agent's, and the real key."""
        headers = {name: incoming[name] for name in _FORWARDED if name in incoming}
        headers.setdefault("content-type", "application/json")
        if protocol == "anthropic":
            headers["x-api-key"] = self._env.get("ANTHROPIC_API_KEY", "")
            headers.setdefault("anthropic-version", "2023-06-01")
        else:
            headers["authorization"] = f"Bearer {self._env.get('OPENAI_API_KEY', '')}"
        return headers


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent: a failed request was answered (or its agent went away); no traceback."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A 3xx is the upstream's answer, never followed: the key would go to another address."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


class _Handler(BaseHTTPRequestHandler):
    proxy: ProxyServer
    _kept = False
    """Whether this request's exchange is kept."""
    _started = False
    """Whether its answer has begun."""
    server_version = "harness-record"
    protocol_version = "HTTP/1.1"
    timeout = 300

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the recorder reports."""

    def do_POST(self) -> None:
        protocol = protocol_of(self.path)
        body = self._body()
        if protocol is None or body is None:
            status = 404 if protocol is None else 400
            self._reply(status, _error_body(protocol, status, "not proxied"))
            return
        self.proxy.begin()
        self._kept = self._started = False
        try:
            self._exchange(protocol, body)
        except Exception as exc:  # answered in the protocol's shape, kept, never printed
            error = redact(f"the recorder failed on this request: {type(exc).__name__}: {exc}")
            if not self._kept:
                self._keep(_failed(protocol, None, 500, b"", error))
            self._answer_failure(protocol, 500, error)

    def _keep(self, exchange: Exchange) -> None:
        self._kept = True
        self.proxy.keep(exchange)

    def _exchange(self, protocol: str, body: bytes) -> None:
        try:
            request = json.loads(body)
        except (ValueError, RecursionError):
            error = "the agent's request body is not JSON"
            self._keep(_failed(protocol, None, 400, b"", error))
            self._reply(400, _error_body(protocol, 400, error))
            return
        incoming = {name.lower(): value for name, value in self.headers.items()}
        upstream = urllib.request.Request(
            self.proxy.upstream + self.path,
            data=body,
            headers=self.proxy.headers_for(protocol, incoming),
            method="POST",
        )
        self._forward(protocol, request, upstream)

    def _forward(self, protocol: str, request: Any, upstream: urllib.request.Request) -> None:
        try:
            with _OPENER.open(upstream, timeout=self.proxy.timeout) as response:
                self._relay(protocol, request, response.status, response)
        except urllib.error.HTTPError as exc:
            with exc:  # its connection is closed here, not whenever it is collected
                if 300 <= exc.code < 400:
                    self._redirected(protocol, request, exc)
                    return
                data = exc.read(MAX_RESPONSE_BYTES)
            error = redact(f"the upstream answered {exc.code}: {_message(data)}")
            self._keep(_failed(protocol, request, exc.code, data, error))
            self._reply(exc.code, data)
        except (OSError, ValueError) as exc:  # unreachable, refused, timed out, bad URL
            reason = getattr(exc, "reason", exc)
            error = redact(f"the upstream cannot be reached: {reason}")
            self._keep(_failed(protocol, request, 0, b"", error))
            self._reply(502, _error_body(protocol, 502, error))

    def _redirected(self, protocol: str, request: Any, exc: urllib.error.HTTPError) -> None:
        """A 3xx: the exchange fails, naming where it pointed; the agent gets a 502."""
        location = one_line(str(exc.headers.get("location") or "nowhere"), 500)
        error = redact(
            f"the upstream answered {exc.code}, redirecting to {location}: harness record "
            "never sends its key on to another address (pass that --upstream if you trust it)"
        )
        self._keep(_failed(protocol, request, exc.code, b"", error))
        self._reply(502, _error_body(protocol, 502, error))

    def _answer_failure(self, protocol: str, status: int, message: str) -> None:
        """Answer a request that failed here, unless its answer has already begun."""
        self.close_connection = True
        if not self._started:
            with contextlib.suppress(OSError):  # the agent went away
                self._reply(status, _error_body(protocol, status, message))

    def _relay(self, protocol: str, request: Any, status: int, response: Any) -> None:
        kind = response.headers.get("content-type", "application/json")
        streamed = kind.startswith("text/event-stream")
        self._started = True
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("connection", "close")
        if not streamed:
            data = response.read(MAX_RESPONSE_BYTES)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self.end_headers()
            parts: list[bytes] = []
            size = 0
            while size < MAX_RESPONSE_BYTES and (line := response.readline(65536)):
                parts.append(line)
                size += len(line)
                self.wfile.write(line)
                self.wfile.flush()
            data = b"".join(parts)
        self.close_connection = True
        self._keep(
            Exchange(
                protocol=protocol, request=request, status=status, body=data, streamed=streamed
            )
        )

    def _body(self) -> bytes | None:
        length = self.headers.get("content-length")
        if length is None or not length.isdigit() or int(length) > MAX_BODY_BYTES:
            return None
        return self.rfile.read(int(length))

    def _reply(self, status: int, data: bytes) -> None:
        self._started = True
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True


def _failed(protocol: str, request: Any, status: int, data: bytes, error: str) -> Exchange:
    return Exchange(
        protocol=protocol, request=request, status=status, body=data, streamed=False, error=error
    )


def _error_body(protocol: str | None, status: int, message: str) -> bytes:
    """An error answer in the protocol's own shape (Anthropic's, or OpenAI's)."""
    kind = "invalid_request_error" if status < 500 else "api_error"
    if protocol == "anthropic":
        body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    else:
        body = {"error": {"message": message, "type": kind, "code": None}}
    return json.dumps(body).encode()


def _message(data: bytes) -> str:
    """The upstream's error message, on one line and short."""
    try:
        error = json.loads(data).get("error")
        text = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError, RecursionError):
        text = data.decode("utf-8", "replace")
    return " ".join(str(text or "no message").split())[:200]

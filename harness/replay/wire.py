"""Replay over the wire: an OpenAI-compatible chat-completions endpoint on loopback.

An agent in any language or framework is replayed unmodified by pointing its base URL at
`ReplayServer.url`. Each case gets a session with its own API key, so a request is always
served from (and recorded into) the case that made it:

- `POST /v1/chat/completions` pops the case's next scripted reply and answers in the
  chat-completions format, or as server-sent events ending with `data: [DONE]` when the
  request asks for `"stream": true`;
- `GET /v1/models` lists the one replay model.

Recording happens at the wire: each `role: tool` message is matched by `tool_call_id` to the
scripted call it answers and recorded as `RecordedCall(name, arguments, result)`, where the
arguments are the scripted ones and the result is what the agent sent back. A result for an id
no scripted call has, and a scripted call that never gets a result, are reported as errors of
the case: both are classic agent bugs. Every request body is kept for the JSON report.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.chat_format import (
    content_text,
    to_openai_message,
    to_openai_tool_call,
    to_openai_usage,
)
from harness.errors import ReplayError
from harness.messages import (
    NOT_SEEN,
    ModelProvider,
    ModelReply,
    Observer,
    ToolCall,
    ToolDispatched,
)

__all__ = ["MODEL_ID", "ReplayServer", "WireSession", "shared_server"]

MODEL_ID = "harness-replay"
MAX_REQUEST_BYTES = 32 * 1024 * 1024


class WireSession:
    """One case's side of the endpoint: its replies, its recorded calls, its requests."""

    def __init__(
        self, name: str, provider: ModelProvider, observer: Observer, *, record: bool = True
    ) -> None:
        self.name = name
        # Tool spans: with `record` off the spans are the record of the calls, and the results
        # the agent sent the model are kept in `results` to be joined to them.
        self._record = record
        self.results: dict[str, str] = {}
        self.api_key = f"harness-{secrets.token_hex(8)}"
        self._provider = provider
        self._observer = observer
        self._lock = threading.Lock()
        self._served: dict[str, ToolCall] = {}
        self._answered: set[str] = set()
        self._replies = 0
        self.requests: list[Any] = []
        self.problems: list[str] = []

    def complete(self, body: dict[str, Any]) -> ModelReply | str:
        """Record the request and its tool results; the next scripted reply, or an error text."""
        with self._lock:
            self.requests.append(body)
            self._record_tool_results(body.get("messages"))
            try:
                reply = self._provider.complete((), ())
            except ReplayError as exc:
                self.problems.append(str(exc))
                return str(exc)
            self._replies += 1
            for call in reply.tool_calls:
                self._served[call.id] = call
            return reply

    def reply_id(self) -> str:
        """A deterministic id for the latest reply."""
        return f"chatcmpl-harness-{self._replies}"

    def _record_tool_results(self, messages: Any) -> None:
        for message in messages if isinstance(messages, list) else ():
            if not isinstance(message, dict) or message.get("role") != "tool":
                continue
            call_id = str(message.get("tool_call_id"))
            if call_id in self._answered:
                continue  # the history is sent again with every request
            self._answered.add(call_id)
            result = content_text(message.get("content"))
            call = self._served.get(call_id)
            if call is None:
                served = ", ".join(f'"{known}"' for known in self._served) or "none yet"
                self.problems.append(
                    f'the agent sent a tool result for tool_call_id "{call_id}", which no scripted '
                    f"call has (scripted so far: {served})"
                )
                name, arguments, success = f"<unknown tool_call_id {call_id}>", NOT_SEEN, False
            else:
                name, arguments, success = call.name, call.arguments, True
                self.results[call_id] = result
            if not self._record:
                continue
            self._observer.notify(
                ToolDispatched(
                    name=name, arguments=arguments, result=result, success=success, observed="wire"
                )
            )

    @property
    def scripted(self) -> list[ToolCall]:
        """Every scripted call served so far, in order."""
        with self._lock:
            return list(self._served.values())

    def finish(self) -> list[str]:
        """Every problem of the case, including scripted calls that never got a result."""
        with self._lock:
            for call_id, call in self._served.items():
                if call_id not in self._answered:
                    self.problems.append(
                        f'scripted tool call "{call_id}" ({call.name}) never got a result '
                        "from the agent"
                    )
            return list(self.problems)


class ReplayServer:
    """The endpoint, on 127.0.0.1 and a free port, serving whichever sessions are open."""

    def __init__(self) -> None:
        self._sessions: dict[str, WireSession] = {}
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"server_state": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="harness-wire", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes (it ends in `/v1`)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @contextmanager
    def session(
        self, name: str, provider: ModelProvider, observer: Observer, *, record: bool = True
    ) -> Iterator[WireSession]:
        """Serve one case while the block runs (`record` off: its spans record the calls)."""
        session = WireSession(name, provider, observer, record=record)
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

    def close(self) -> None:
        """Stop serving."""
        self._httpd.shutdown()
        self._httpd.server_close()


_shared: ReplayServer | None = None
_shared_lock = threading.Lock()


def shared_server() -> ReplayServer:
    """This process's endpoint, started on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ReplayServer()
        return _shared


class _Handler(BaseHTTPRequestHandler):
    server_state: ReplayServer
    server_version = "harness-replay"

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the report is the log."""

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "harness"}
            self._json(200, {"object": "list", "data": [model]})
        else:
            self._error(404, f"no route {self.path}", "not_found")

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"no route {self.path}", "not_found")
            return
        session = self.server_state.find(_bearer(self.headers.get("Authorization", "")))
        if session is None:
            self._error(
                401, "unknown API key: use the key the harness gave this case", "invalid_api_key"
            )
            return
        body = self._body()
        if body is None:
            return
        outcome = session.complete(body)
        if isinstance(outcome, str):
            self._error(400, outcome, "harness_replay_exhausted")
        elif body.get("stream"):
            self._stream(session, body, outcome)
        else:
            self._json(200, _completion(session.reply_id(), body, outcome))

    def _body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            self._error(413, f"request body over {MAX_REQUEST_BYTES} bytes", "request_too_large")
            return None
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except (ValueError, UnicodeDecodeError) as exc:
            self._error(400, f"request body is not JSON: {exc}", "invalid_json")
            return None
        if not isinstance(body, dict):
            self._error(400, "request body must be a JSON object", "invalid_json")
            return None
        return body

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, code: str) -> None:
        kind = "invalid_request_error" if status < 500 else "server_error"
        self._json(
            status, {"error": {"message": message, "type": kind, "param": None, "code": code}}
        )

    def _stream(self, session: WireSession, body: dict[str, Any], reply: ModelReply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        for chunk in _chunks(session.reply_id(), body, reply, usage):
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _bearer(header: str) -> str:
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _completion(reply_id: str, body: dict[str, Any], reply: ModelReply) -> dict[str, Any]:
    message = to_openai_message(reply)
    if reply.tool_calls and not reply.text:
        message["content"] = None
    return {
        "id": reply_id,
        "object": "chat.completion",
        "created": 0,
        "model": str(body.get("model") or MODEL_ID),
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish(reply)}
        ],
        "usage": to_openai_usage(reply.usage),
    }


def _finish(reply: ModelReply) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


def _chunks(
    reply_id: str, body: dict[str, Any], reply: ModelReply, usage: bool
) -> Iterator[dict[str, Any]]:
    base = {
        "id": reply_id,
        "object": "chat.completion.chunk",
        "created": 0,
        "model": str(body.get("model") or MODEL_ID),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**base, "choices": [choice]}

    yield chunk({"role": "assistant", "content": ""})
    if reply.text:
        yield chunk({"content": reply.text})
    for index, call in enumerate(reply.tool_calls):
        yield chunk({"tool_calls": [{"index": index, **to_openai_tool_call(call)}]})
    yield chunk({}, _finish(reply))
    if usage:
        yield {**base, "choices": [], "usage": to_openai_usage(reply.usage)}

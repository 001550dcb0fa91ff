"""An OTLP/HTTP trace receiver on loopback: the spans agents export, routed to their case.

Started on first use, only when tool spans are on, and independent of the replay endpoint.
It answers `POST /v1/traces` in both OTLP encodings (`application/x-protobuf` and
`application/json`), gzip-compressed or not, decoded with the official `opentelemetry-proto`
messages (the optional extra `replay-harness[otel]`). Each case gets an inbox with its own
token, which the agent's exporter sends in the `x-harness-case` header
(`OTEL_EXPORTER_OTLP_HEADERS`), so spans always land in the case that made them.
"""

from __future__ import annotations

import gzip
import json
import secrets
import string
import threading
import time
import zlib
from typing import Any

from harness.errors import ConfigError
from harness.replay.loopback import GuardedHandler, LoopbackServer
from harness.replay.spans import Span, tool_span

__all__ = [
    "CAPTURE_CONTENT",
    "CASE_HEADER",
    "MAX_TRACE_BYTES",
    "OtlpExport",
    "SpanInbox",
    "SpanReceiver",
    "forget_shared_receiver",
    "require_otel",
    "shared_receiver",
]

CASE_HEADER = "x-harness-case"
"""The header that routes an export to its case."""
MAX_TRACE_BYTES = 16 * 1024 * 1024
"""The largest export accepted, compressed or decompressed."""
MISSING = "tool spans need the OpenTelemetry protocol messages: pip install 'replay-harness[otel]'"


def require_otel(source: str, key: str | None) -> None:
    """Make sure the OTLP messages can be imported.

    Raises:
        ConfigError: `opentelemetry-proto` is not installed.
    """
    try:
        # Deferred: an optional dependency (the `otel` extra), checked here.
        import opentelemetry.proto.collector.trace.v1.trace_service_pb2  # noqa: F401
    except ImportError:
        raise ConfigError(source, key, MISSING) from None


CAPTURE_CONTENT = {
    # OpenTelemetry's GenAI instrumentations, under the latest experimental conventions.
    "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_AND_EVENT",
    # The OpenAI Agents SDK (already its default).
    "OPENAI_AGENTS_TRACE_INCLUDE_SENSITIVE_DATA": "true",
    # OpenLLMetry (Traceloop) and OpenInference keep content unless told otherwise.
    "TRACELOOP_TRACE_CONTENT": "true",
    "OPENINFERENCE_HIDE_INPUTS": "false",
    "OPENINFERENCE_HIDE_OUTPUTS": "false",
    # Google's ADK.
    "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS": "true",
    # logfire exports to the OTLP endpoint above, and not to its own service.
    "LOGFIRE_SEND_TO_LOGFIRE": "false",
}
"""The switches the common instrumentations read to put tool arguments and results in spans."""


class OtlpExport:
    """Where one case's agent exports its spans: what its exporter is configured with."""

    def __init__(self, receiver: SpanReceiver, inbox: SpanInbox) -> None:
        self.endpoint = receiver.endpoint
        """The OTLP/HTTP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`)."""
        self.traces_endpoint = receiver.traces_endpoint
        """The traces URL an `OTLPSpanExporter(endpoint=...)` takes."""
        self.headers = {CASE_HEADER: inbox.token}
        """The headers an exporter must send, so its spans land in this case."""

    @property
    def env(self) -> dict[str, str]:
        """The environment a subprocess agent gets: the exporter's settings, content on."""
        return {
            "OTEL_EXPORTER_OTLP_ENDPOINT": self.endpoint,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": self.traces_endpoint,
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_HEADERS": ",".join(f"{k}={v}" for k, v in self.headers.items()),
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
            **CAPTURE_CONTENT,
        }


class SpanInbox:
    """One case's spans, as they arrive."""

    def __init__(self, token: str | None = None) -> None:
        self.token = token or secrets.token_hex(8)
        self._spans: list[Span] = []
        self._arrived = threading.Condition()

    def add(self, spans: list[Span]) -> None:
        """Take in the spans of one export."""
        with self._arrived:
            self._spans.extend(spans)
            self._arrived.notify_all()

    def wait(self, tool_spans: int, grace_s: float) -> list[Span]:
        """Every span so far, once `tool_spans` tool spans are in or `grace_s` has passed.

        Spans exported when the agent exits (the batch processor's flush) can arrive a moment
        after its last turn: they are waited for, never for longer than the grace period.
        """
        deadline = time.monotonic() + grace_s
        with self._arrived:
            while sum(tool_span(span) is not None for span in self._spans) < tool_spans:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._arrived.wait(left)
            return list(self._spans)


class SpanReceiver:
    """The receiver, on 127.0.0.1 and a free port, delivering to whichever inboxes are open."""

    def __init__(self) -> None:
        self._inboxes: dict[str, SpanInbox] = {}
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"receiver": self})
        self._httpd = LoopbackServer(handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="harness-otlp", daemon=True
        )
        self._thread.start()

    @property
    def endpoint(self) -> str:
        """The base URL an OTLP/HTTP exporter takes (`OTEL_EXPORTER_OTLP_ENDPOINT`)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def traces_endpoint(self) -> str:
        """The full traces URL (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)."""
        return f"{self.endpoint}/v1/traces"

    def open(self, token: str | None = None) -> SpanInbox:
        """A new inbox for one case, under `token` (None: a new one; a reused agent process
        keeps one token, delivered to whichever of its cases is open)."""
        inbox = SpanInbox(token)
        with self._lock:
            self._inboxes[inbox.token] = inbox
        return inbox

    def close(self, inbox: SpanInbox) -> None:
        """Stop delivering to `inbox`: later exports for it are refused."""
        with self._lock:
            self._inboxes.pop(inbox.token, None)

    def find(self, token: str) -> SpanInbox | None:
        """The open inbox a token belongs to."""
        with self._lock:
            return self._inboxes.get(token)

    def shutdown(self) -> None:
        """Stop serving."""
        self._httpd.shutdown()
        self._httpd.server_close()


_shared: SpanReceiver | None = None
_shared_lock = threading.Lock()


def forget_shared_receiver() -> None:
    """In a forked child: drop the parent's receiver, whose serving thread was not forked."""
    global _shared, _shared_lock
    _shared, _shared_lock = None, threading.Lock()


def shared_receiver() -> SpanReceiver:
    """This process's receiver, started on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SpanReceiver()
        return _shared


class _Handler(GuardedHandler):
    receiver: SpanReceiver
    server_version = "harness-otlp"

    def fail(self, status: int, message: str) -> None:
        """An OTLP error: a `google.rpc.Status`, JSON-encoded."""
        self._answer(status, message)

    def post(self) -> None:
        if self.path.split("?", 1)[0].rstrip("/") != "/v1/traces":
            self._answer(404, f"no route {self.path}: spans go to /v1/traces")
            return
        inbox = self.receiver.find(self.headers.get(CASE_HEADER, "").strip())
        if inbox is None:
            self._answer(404, f"unknown or missing {CASE_HEADER} header: no open case has it")
            return
        kind = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if kind not in ("application/x-protobuf", "application/json"):
            self._answer(415, "send application/x-protobuf or application/json")
            return
        body = self._body()
        if body is None:
            return
        try:
            spans = decode(body, json_encoded=kind == "application/json")
        except ValueError as exc:
            self._answer(400, f"not an OTLP trace export: {exc}")
            return
        inbox.add(spans)
        self._answer(200, "", json_encoded=kind == "application/json")

    def _body(self) -> bytes | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_TRACE_BYTES:
            self._answer(413 if length > 0 else 400, f"body must be 0 to {MAX_TRACE_BYTES} bytes")
            return None
        chunked = self.headers.get("Transfer-Encoding", "").strip().lower() == "chunked"
        try:
            raw = _chunked(self.rfile) if chunked else self.rfile.read(length)
        except ValueError as exc:
            self.close_connection = True  # the rest of the body is never read
            self._answer(400, str(exc))
            return None
        if raw is None:
            self._answer(413, f"body over {MAX_TRACE_BYTES} bytes")
            return None
        if self.headers.get("Content-Encoding", "").strip().lower() == "gzip":
            try:
                unpacker = zlib.decompressobj(wbits=31)
                raw = unpacker.decompress(raw, MAX_TRACE_BYTES + 1)
            except (zlib.error, gzip.BadGzipFile) as exc:
                self._answer(400, f"body is not gzip: {exc}")
                return None
            if len(raw) > MAX_TRACE_BYTES:
                self._answer(413, f"decompressed body over {MAX_TRACE_BYTES} bytes")
                return None
        return raw

    def _answer(self, status: int, message: str, *, json_encoded: bool = True) -> None:
        if status == 200:
            data = b"{}" if json_encoded else b""
        else:
            data = json.dumps({"code": status, "message": message}).encode()
        self.send_response(status)
        self.send_header(
            "Content-Type", "application/json" if json_encoded else "application/x-protobuf"
        )
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _chunked(stream: Any) -> bytes | None:
    """A chunked body read whole; None past the bound.

    Raises:
        ValueError: A chunk size is not a hexadecimal number >= 0.
    """
    parts: list[bytes] = []
    total = 0
    while True:
        line = stream.readline(64).split(b";", 1)[0].strip()
        if not line or not all(chr(byte) in string.hexdigits for byte in line):
            raise ValueError(f"malformed chunk size {line[:20]!r}")
        size = int(line, 16)
        if size == 0:
            stream.readline(64)  # the blank line after the last chunk
            return b"".join(parts)
        total += size
        if total > MAX_TRACE_BYTES:
            return None
        parts.append(stream.read(size))
        stream.readline(64)


def decode(body: bytes, *, json_encoded: bool) -> list[Span]:
    """The spans of one OTLP `ExportTraceServiceRequest`.

    Raises:
        ValueError: The body is not such a message.
    """
    # Deferred: an optional dependency (the `otel` extra).
    from google.protobuf import json_format
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    try:
        if json_encoded:
            json_format.Parse(body.decode("utf-8"), request, ignore_unknown_fields=True)
        else:
            request.ParseFromString(body)
    except (DecodeError, json_format.ParseError, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(str(exc) or type(exc).__name__) from None
    spans = []
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            for span in scope.spans:
                spans.append(
                    Span(
                        name=span.name,
                        attributes={item.key: _value(item.value) for item in span.attributes},
                        error=span.status.code == 2,  # STATUS_CODE_ERROR
                        status_message=span.status.message,
                        start_ns=span.start_time_unix_nano,
                        end_ns=span.end_time_unix_nano,
                    )
                )
    return spans


def _value(value: Any) -> Any:
    """An OTLP `AnyValue` as plain Python."""
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [_value(item) for item in value.array_value.values]
    if which == "kvlist_value":
        return {item.key: _value(item.value) for item in value.kvlist_value.values}
    if which == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, which)

"""The OTLP/HTTP receiver: both encodings, gzip, routing by case, bounded and fail-closed."""

from __future__ import annotations

import gzip
import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from harness.errors import ConfigError
from harness.replay import otlp
from harness.replay.otlp import CASE_HEADER, SpanReceiver, require_otel


@pytest.fixture(scope="module")
def receiver() -> Any:
    served = SpanReceiver()
    yield served
    served.shutdown()


def export_request(attributes: dict[str, Any], *, error: bool = False) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    span = request.resource_spans.add().scope_spans.add().spans.add()
    span.name = "execute_tool echo"
    span.start_time_unix_nano = 5
    for key, value in attributes.items():
        item = span.attributes.add()
        item.key = key
        if isinstance(value, bool):
            item.value.bool_value = value
        elif isinstance(value, int):
            item.value.int_value = value
        elif isinstance(value, list):
            for entry in value:
                item.value.array_value.values.add().string_value = entry
        else:
            item.value.string_value = value
    if error:
        span.status.code = Status.STATUS_CODE_ERROR
        span.status.message = "boom"
    return request


def post(
    receiver: SpanReceiver,
    body: bytes,
    *,
    token: str,
    kind: str = "application/x-protobuf",
    encoding: str | None = None,
    path: str = "/v1/traces",
) -> tuple[int, bytes]:
    headers = {"Content-Type": kind, CASE_HEADER: token}
    if encoding:
        headers["Content-Encoding"] = encoding
    request = urllib.request.Request(
        receiver.endpoint + path, data=body, headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


ATTRIBUTES = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "echo",
    "gen_ai.tool.call.id": "call_1",
    "gen_ai.tool.call.arguments": '{"message": "hi"}',
    "retries": 3,
    "flag": True,
    "tags": ["a", "b"],
}


def test_protobuf_json_and_gzip_exports_land_in_their_case(receiver: SpanReceiver) -> None:
    """Each encoding decodes to the same span, delivered to the inbox its header names."""
    inbox, other = receiver.open(), receiver.open()
    message = export_request(ATTRIBUTES, error=True)
    from google.protobuf import json_format

    as_json = json_format.MessageToJson(message).encode()
    assert post(receiver, message.SerializeToString(), token=inbox.token)[0] == 200
    assert post(receiver, as_json, token=inbox.token, kind="application/json") == (200, b"{}")
    packed = gzip.compress(message.SerializeToString())
    assert post(receiver, packed, token=inbox.token, encoding="gzip")[0] == 200
    spans = inbox.wait(3, 0)
    assert len(spans) == 3
    assert all(span == spans[0] for span in spans)
    assert spans[0].attributes == {**ATTRIBUTES}
    assert spans[0].error is True
    assert spans[0].status_message == "boom"
    assert spans[0].start_ns == 5
    assert other.wait(0, 0) == []
    receiver.close(inbox)
    receiver.close(other)


def test_bad_exports_are_refused_with_a_reason(
    receiver: SpanReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unknown cases, wrong paths and types, bad bodies and oversized ones: 4xx, nothing kept."""
    inbox = receiver.open()
    good = export_request(ATTRIBUTES).SerializeToString()
    assert post(receiver, good, token="nope")[0] == 404
    assert post(receiver, good, token=inbox.token, path="/v1/logs")[0] == 404
    assert post(receiver, good, token=inbox.token, kind="text/plain")[0] == 415
    status, body = post(receiver, b"\xff\xff\xff", token=inbox.token)
    assert status == 400
    assert "not an OTLP trace export" in json.loads(body)["message"]
    bad_json = b'{"resourceSpans": 3}'
    assert post(receiver, bad_json, token=inbox.token, kind="application/json")[0] == 400
    assert post(receiver, b"not gzip", token=inbox.token, encoding="gzip")[0] == 400
    monkeypatch.setattr(otlp, "MAX_TRACE_BYTES", 64)
    assert post(receiver, good * 10, token=inbox.token)[0] == 413
    bomb = gzip.compress(b"\0" * 10_000)
    assert post(receiver, bomb, token=inbox.token, encoding="gzip")[0] == 413
    assert inbox.wait(0, 0) == []
    receiver.close(inbox)
    assert post(receiver, good, token=inbox.token)[0] == 404  # closed: late spans go nowhere


def test_the_export_env_points_an_exporter_at_the_case(receiver: SpanReceiver) -> None:
    """Endpoint, protocol, the routing header and the content-capture switches."""
    inbox = receiver.open()
    env = otlp.OtlpExport(receiver, inbox).env
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == receiver.endpoint
    assert env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] == receiver.endpoint + "/v1/traces"
    assert env["OTEL_EXPORTER_OTLP_PROTOCOL"] == "http/protobuf"
    assert env["OTEL_EXPORTER_OTLP_HEADERS"] == f"{CASE_HEADER}={inbox.token}"
    assert env["OTEL_SEMCONV_STABILITY_OPT_IN"] == "gen_ai_latest_experimental"
    assert env["TRACELOOP_TRACE_CONTENT"] == "true"
    receiver.close(inbox)


def test_a_missing_extra_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without opentelemetry-proto, turning tool spans on names the extra to install."""
    import sys

    monkeypatch.setitem(
        sys.modules, "opentelemetry.proto.collector.trace.v1.trace_service_pb2", None
    )
    with pytest.raises(ConfigError, match=r"pip install 'replay-harness\[otel\]'") as caught:
        require_otel("--tool-spans", None)
    assert "\n" not in str(caught.value)


OTLP_JSON = {
    "resourceSpans": [
        {
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "a"}}]},
            "scopeSpans": [
                {
                    "scope": {"name": "ai"},
                    "spans": [
                        {
                            "traceId": "5b8efff798038103d269b633813fc60c",
                            "spanId": "eee19b7ec3c1b174",
                            "name": "ai.toolCall",
                            "kind": 1,
                            "startTimeUnixNano": "1544712660000000000",
                            "attributes": [
                                {"key": "ai.toolCall.name", "value": {"stringValue": "echo"}},
                                {"key": "ai.toolCall.retries", "value": {"intValue": "3"}},
                            ],
                            "status": {"code": 2},
                        }
                    ],
                }
            ],
        }
    ]
}


def test_the_json_encoding_exporters_send_is_read(receiver: SpanReceiver) -> None:
    """Hex trace ids, int64 as strings, enums as numbers: the OTLP JSON of real exporters."""
    inbox = receiver.open()
    body = json.dumps(OTLP_JSON).encode()
    assert post(receiver, body, token=inbox.token, kind="application/json")[0] == 200
    (span,) = inbox.wait(1, 0)
    assert span.attributes == {"ai.toolCall.name": "echo", "ai.toolCall.retries": 3}
    assert span.error is True
    assert span.start_ns == 1544712660000000000
    receiver.close(inbox)


def test_a_chunked_export_is_read_whole(receiver: SpanReceiver) -> None:
    """Exporters that stream the body without a length are read to the last chunk."""
    import http.client

    inbox = receiver.open()
    body = export_request(ATTRIBUTES).SerializeToString()
    host, port = receiver.endpoint.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"Content-Type": "application/x-protobuf", CASE_HEADER: inbox.token}
    halves = iter([body[:10], body[10:]])
    connection.request("POST", "/v1/traces", body=halves, headers=headers, encode_chunked=True)
    assert connection.getresponse().status == 200
    connection.close()
    (span,) = inbox.wait(1, 0)
    assert span.attributes["gen_ai.tool.name"] == "echo"
    receiver.close(inbox)


def raw_exchange(receiver: SpanReceiver, raw: bytes) -> tuple[int, dict[str, Any]]:
    """Send raw bytes on a fresh connection; the status and JSON body answered."""
    import socket

    host, port = receiver.endpoint.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


@pytest.mark.parametrize(
    "size", [b"zz", b"-5", b"", b"0x10"], ids=["not-hex", "negative", "empty", "prefixed"]
)
def test_a_bad_chunk_size_is_a_400(
    receiver: SpanReceiver, size: bytes, capfd: pytest.CaptureFixture[str]
) -> None:
    """A chunk size that is not a hexadecimal number is an OTLP error, never a traceback."""
    inbox = receiver.open()
    head = (
        "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
        f"{CASE_HEADER}: {inbox.token}\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    status, answer = raw_exchange(receiver, head + size + b"\r\nabc\r\n0\r\n\r\n")
    receiver.close(inbox)
    assert (status, answer["code"]) == (400, 400)
    assert "malformed chunk size" in answer["message"]
    assert capfd.readouterr().err == ""


def test_a_failing_receiver_is_a_500_without_a_traceback(
    receiver: SpanReceiver, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A defect while decoding is answered as an OTLP error; stderr stays empty."""

    def broken(*_: Any, **__: Any) -> Any:
        raise KeyError("boom")

    monkeypatch.setattr(otlp, "decode", broken)
    inbox = receiver.open()
    status, body = post(receiver, export_request(ATTRIBUTES).SerializeToString(), token=inbox.token)
    receiver.close(inbox)
    assert status == 500
    assert "KeyError" in json.loads(body)["message"]
    assert capfd.readouterr().err == ""

"""The record proxy's own failures: answered in the protocol's shape, never a traceback."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from harness.masking import redact
from harness.replay.proxy import ProxyServer

KEY = "upstream-key-for-the-proxy-0123456789"


def post(proxy: ProxyServer, path: str, body: bytes) -> tuple[int, Any]:
    request = urllib.request.Request(
        proxy.root + path, data=body, headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


@pytest.mark.parametrize(
    ("path", "shape"),
    [("/v1/chat/completions", "openai"), ("/v1/messages", "anthropic")],
)
def test_a_request_the_proxy_cannot_handle_is_a_500_in_the_protocols_shape(
    path: str, shape: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A failure inside the handler: a 500 the agent's SDK can read, a failed exchange kept,
    nothing printed."""

    def fail(*args: Any) -> dict[str, str]:
        raise RuntimeError(f"boom with {KEY}")

    monkeypatch.setattr(ProxyServer, "headers_for", fail)
    with ProxyServer("http://127.0.0.1:9/v1", env={"OPENAI_API_KEY": KEY}) as proxy:
        status, body = post(proxy, path, b'{"model": "m", "messages": []}')
        assert proxy.settled() == 1
        (exchange,) = proxy.exchanges
    assert status == 500
    if shape == "anthropic":
        assert body["type"] == "error"
        assert body["error"]["type"] == "api_error"
    else:
        assert body["error"]["type"] == "api_error"
    assert "RuntimeError: boom" in body["error"]["message"]
    assert KEY[4:] not in body["error"]["message"]
    assert exchange.error is not None
    assert KEY[4:] not in exchange.error
    captured = capfd.readouterr()
    assert captured.out == captured.err == ""


def test_a_body_nested_too_deep_is_a_400(capfd: pytest.CaptureFixture[str]) -> None:
    """5,000 nested arrays is no request: a 400 saying so, nothing printed."""
    with ProxyServer("http://127.0.0.1:9/v1") as proxy:
        status, body = post(proxy, "/v1/messages", b"[" * 5000 + b"]" * 5000)
        assert proxy.settled() == 1
    assert status == 400
    assert body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "the agent's request body is not JSON",
        },
    }
    assert capfd.readouterr().err == ""


def test_the_upstream_key_is_masked_in_every_output_once_the_proxy_holds_it() -> None:
    """The key the proxy forwards is masked wherever it appears, whatever surrounds it."""
    key = "k3y-that-looks-like-nothing-in-particular"
    assert redact(f"echo {key}!") == f"echo {key}!"
    with ProxyServer("http://127.0.0.1:9/v1", env={"ANTHROPIC_API_KEY": key}):
        pass
    assert redact(f"echo {key}!") == "echo k3y-*[REDACTED]!"

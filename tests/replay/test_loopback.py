"""The loopback HTTP server: a handler's failure is an answer or a closed socket, never a
traceback on the harness's stderr."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from harness.replay.loopback import GuardedHandler, LoopbackServer

finished = threading.Event()


class _Failing(GuardedHandler):
    """Each path fails its own way: a client gone, a defect, a recursion."""

    protocol_version = "HTTP/1.1"

    def post(self) -> None:
        try:
            failure = {
                "/gone": ConnectionResetError("peer reset"),
                "/pipe": BrokenPipeError("broken pipe"),
                "/defect": ZeroDivisionError("division by zero"),
                "/deep": RecursionError("maximum recursion depth exceeded"),
            }[self.path]
            raise failure
        finally:
            finished.set()

    def fail(self, status: int, message: str) -> None:
        data = json.dumps({"status": status, "message": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    served = LoopbackServer(_Failing)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    yield served
    served.shutdown()
    served.server_close()


def exchange(server: LoopbackServer, path: str) -> bytes:
    finished.clear()
    host, port = server.server_address[:2]
    with socket.create_connection((str(host), port), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".encode())
        sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert finished.wait(10)
    return data


@pytest.mark.parametrize("path", ["/gone", "/pipe"])
def test_a_client_gone_mid_answer_is_closed_quietly(
    server: LoopbackServer, path: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """A reset or broken pipe (a case ended with its request open) closes the socket, no print."""
    assert exchange(server, path) == b""
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize(("path", "status"), [("/defect", 500), ("/deep", 400)])
def test_a_failure_is_answered_in_the_handlers_shape(
    server: LoopbackServer, path: str, status: int, capfd: pytest.CaptureFixture[str]
) -> None:
    """A defect is a 500 and a recursion a 400, each through the handler's own `fail`."""
    head, _, body = exchange(server, path).partition(b"\r\n\r\n")
    assert head.startswith(f"HTTP/1.1 {status} ".encode())
    assert json.loads(body)["status"] == status
    assert capfd.readouterr().err == ""


def test_an_error_outside_a_handler_is_not_printed(
    server: LoopbackServer, capfd: pytest.CaptureFixture[str]
) -> None:
    """What fails before the handler runs (reading the request line) reaches `handle_error`,
    which the standard server would print as a traceback: here it is silent."""
    try:
        raise ConnectionResetError("peer reset while the request line was read")
    except ConnectionResetError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert capfd.readouterr().err == ""

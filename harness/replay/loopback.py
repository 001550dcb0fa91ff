"""The loopback HTTP server the replay endpoint and the OTLP receiver run on.

Whatever a handler meets (a client gone mid-answer, a body nested past the interpreter's
recursion limit, a defect of the harness), the server never prints a traceback on the
harness's stderr, where it would interleave with the report: the request is answered with
a 400 or 500 in the protocol's own error shape, or, when the answer had already begun or
the client is gone, its connection is closed.
"""

from __future__ import annotations

import contextlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["GuardedHandler", "LoopbackServer"]


class LoopbackServer(ThreadingHTTPServer):
    """A threading HTTP server on 127.0.0.1 and a free port, whose errors are never printed."""

    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Silent: a request's failure was answered by its handler, or its client left."""


class GuardedHandler(BaseHTTPRequestHandler):
    """A handler whose `post` and `get` failures become an answer, never a traceback."""

    _began = False

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the report is the log."""

    def send_response(self, code: int, message: str | None = None) -> None:
        """Send the status line, remembering that the answer has begun."""
        self._began = True
        super().send_response(code, message)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's own refusals (a request line too long, an unknown method), in
        the protocol's error shape rather than HTML."""
        self.close_connection = True
        self.fail(code, message or self.responses.get(code, ("error",))[0])

    def do_POST(self) -> None:
        self._guarded(self.post)

    def do_GET(self) -> None:
        self._guarded(self.get)

    def post(self) -> None:
        """Answer a POST."""
        self.fail(405, "POST is not supported here")

    def get(self) -> None:
        """Answer a GET."""
        self.fail(405, "GET is not supported here")

    def fail(self, status: int, message: str) -> None:
        """Answer `status` with `message`, in the protocol's error shape."""
        raise NotImplementedError

    def _guarded(self, answer: Any) -> None:
        try:
            answer()
        except (TimeoutError, ConnectionError):
            self.close_connection = True  # the client is gone: nobody to answer
        except RecursionError:
            self._fail_once(400, "request body nested too deeply")
        except Exception as exc:  # a defect: still an answer, never a traceback
            self._fail_once(500, f"the harness failed to answer: {type(exc).__name__}: {exc}")

    def _fail_once(self, status: int, message: str) -> None:
        self.close_connection = True
        if self._began:  # part of an answer is out: closing is the only signal left
            return
        with contextlib.suppress(Exception):  # the client went away while being told
            self.fail(status, message[:500])

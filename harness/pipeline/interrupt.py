"""Stopping promptly on Ctrl-C (SIGINT) or SIGTERM, keeping what finished.

SIGINT already raises `KeyboardInterrupt`; while a command runs, SIGTERM raises `Interrupted`,
a `KeyboardInterrupt` too, so one handler stops the run either way. A run that is stopped
reports the cases that finished, marked `interrupted`, and the process exits 128 + the
signal's number (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["Interrupted", "exit_status", "signal_name", "stop_on_sigterm"]


class Interrupted(KeyboardInterrupt):
    """The process received a signal asking it to stop."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


def signal_name(exc: KeyboardInterrupt) -> str:
    """`SIGINT` or `SIGTERM`: which signal stopped the run."""
    return signal.Signals(getattr(exc, "signum", signal.SIGINT)).name


def exit_status(name: str) -> int:
    """The conventional exit status after a signal: 128 + its number."""
    return 128 + int(signal.Signals[name])


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into `Interrupted` for the block (main thread only; a no-op elsewhere)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_interrupted(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(signum)

    previous = signal.signal(signal.SIGTERM, raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

"""Stopping promptly on Ctrl-C (SIGINT) or SIGTERM, keeping what finished.

SIGINT already raises `KeyboardInterrupt`; while a command runs, SIGTERM raises `Interrupted`,
a `KeyboardInterrupt` too, so one handler stops the run either way. A run that is stopped
reports the cases that finished, marked `interrupted`, and the process exits 128 + the
signal's number (130 for SIGINT, 143 for SIGTERM). A stop never breaks into a case being fed
to the reports' writers, nor into the reports being written: it waits for them to end, so
every report is whole and they agree.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = [
    "Interrupted",
    "exit_status",
    "hold",
    "release",
    "signal_name",
    "stop_on_sigterm",
    "stops_held",
]

_depth = 0
"""How many holds are open: while one is, a stop waits for the outermost to end."""
_pending: list[int] = []
"""The signals that came while a hold was open, first first."""


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


def _stop(signum: int, frame: FrameType | None) -> None:
    if _depth:
        _pending.append(signum)
        return
    raise Interrupted(signum)


@contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into `Interrupted` for the block, except inside a `hold`, which
    raises it once it ends (main thread only; a no-op elsewhere)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _stop), signal.signal(signal.SIGTERM, _stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGTERM, previous[1])


def hold() -> None:
    """Keep a stop from breaking into what follows, until `release` (one case fed to every
    writer, never to some of them)."""
    global _depth
    _depth += 1


def release() -> None:
    """End a `hold`; at the outermost, a stop that came during it is raised now."""
    global _depth
    _depth -= 1
    if not _depth and _pending:
        signum = _pending[0]
        _pending.clear()
        raise Interrupted(signum)


@contextmanager
def stops_held() -> Iterator[list[str]]:
    """Hold SIGINT and SIGTERM while the block writes the reports, so that each is written
    whole; the list yielded then names the first that came (`SIGTERM`), for the exit status.
    (Main thread only; elsewhere nothing is held.)"""
    global _depth
    stopped: list[str] = []
    if threading.current_thread() is not threading.main_thread():
        yield stopped
        return
    previous = signal.signal(signal.SIGINT, _stop), signal.signal(signal.SIGTERM, _stop)
    _depth += 1
    try:
        yield stopped
    finally:
        _depth -= 1
        if not _depth and _pending:
            stopped.append(signal.Signals(_pending[0]).name)
            _pending.clear()
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGTERM, previous[1])

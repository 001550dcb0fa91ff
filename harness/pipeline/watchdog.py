"""The watchdog of a case run inside a supervised worker: a timer signal, not a thread.

In the harness's own process a case's timeout needs a thread, since the agent must be
abandoned while the run goes on, and a thread start and the handoffs of the interpreter lock
cost every case something a timer signal does not. A supervised worker is expendable instead,
so there the case runs on the main thread under a `SIGALRM` timer that raises `CaseTimeout`
inside the agent's code, which keeps the record up to that point. A worker whose case timed
out retires after answering (the agent may have been stopped holding a lock), and an agent
stuck where the signal cannot reach it is killed by the supervisor past its deadline.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType
from typing import TypeVar

from harness.errors import CaseTimeout

__all__ = ["on_timer", "take_expired"]

T = TypeVar("T")

_expired = False


def on_timer(timeout: float | None, work: Callable[[], T], *, who: str = "the agent") -> T:
    """Run `work` on this thread, raising `CaseTimeout` inside it after `timeout` seconds.

    Args:
        timeout: Seconds `work` may take (None: no limit).
        work: The project's code to run.
        who: Whose code it is, as the timeout's message names it.

    Raises:
        CaseTimeout: The work did not finish in time.
    """
    if timeout is None:
        return work()

    def expire(signum: int, frame: FrameType | None) -> None:
        global _expired
        _expired = True
        raise CaseTimeout(f"case timed out after {timeout:g}s (case_timeout); {who} never finished")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def take_expired() -> bool:
    """Whether a case timed out since the last call (then this process should retire)."""
    global _expired
    expired, _expired = _expired, False
    return expired

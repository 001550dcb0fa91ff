"""Lifelines: every process the harness forks or starts ends with it, whatever ends it.

A child left behind by a harness that died (SIGKILL, SIGHUP, SIGUSR1: signals no handler
sees) would wait for ever on a pipe only the dead parent read, and hold open the stdout the
harness shared with it (`harness run | tee log` never ends). On Linux a child therefore asks
the kernel, first thing, to send it SIGKILL when its parent dies (`prctl(PR_SET_PDEATHSIG)`),
and ends at once if the parent died before it could ask. Elsewhere the check alone is made.

`die_with_parent` is the tie, for any process the harness forks; `tied` is the same for a
process started with `subprocess` (an agent command). `forks_are_workers` marks a
block whose forks are bulk workers (the parallel loader's shares, a pool's workers): each ties
itself, and ends on SIGTERM the default way, without the parent's handler or its traceback.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["die_with_parent", "forks_are_workers", "tied"]

_PR_SET_PDEATHSIG = 1
"""prctl's option: the signal a process gets when the thread that forked it ends."""

_parent: int | None = None
"""While a `forks_are_workers` block runs: the pid its forks are children of."""


def die_with_parent(parent: int) -> None:
    """In a child just forked or started: end with SIGKILL when `parent` dies (Linux); end
    now if it already has."""
    libc = _libc() if sys.platform.startswith("linux") else None
    if libc is not None:
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # orphaned before the tie was made
        os._exit(1)


def tied() -> Callable[[], None]:
    """What a child started with `subprocess` runs before its exec (`preexec_fn`) to die with
    this process; the C library is loaded here, in the parent, not after the fork."""
    parent = os.getpid()
    if sys.platform.startswith("linux"):
        _libc()
    return lambda: die_with_parent(parent)


@functools.cache
def _libc() -> Any:
    """The C library, for `prctl` (None where it cannot be loaded)."""
    import ctypes  # deferred: only runs that fork or start processes load it

    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


@contextmanager
def forks_are_workers() -> Iterator[None]:
    """Make each process forked in the block a worker: tied to this process, SIGTERM quiet."""
    global _parent
    if sys.platform.startswith("linux"):
        _libc()  # loaded here once, not in every child
    previous, _parent = _parent, os.getpid()
    try:
        yield
    finally:
        _parent = previous


def _worker_starts() -> None:
    """After a fork: a worker of a `forks_are_workers` block ties itself to its parent."""
    if _parent is not None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        die_with_parent(_parent)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_worker_starts)

"""Reaping: ending every process a supervised worker's agent left running after its case.

On Linux the worker is made a *child subreaper*, so a process its agent starts and orphans
(a daemon that double-forks, a helper whose parent exited) is re-parented to the worker, not
to init, and stays findable. After each case the worker ends all of its descendants: SIGTERM
first, then SIGKILL for those still alive after a short grace, then reaps them. With no child
at all (the common case) that costs one `waitpid` call. A worker's reused agent process (and
what it started) is spared: it serves the next case.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Collection

from harness.lifeline import die_with_parent

__all__ = ["GRACE_S", "adopt_orphans", "descendants", "end_descendants"]

GRACE_S = 1.0
"""Seconds a descendant has to exit after SIGTERM before it gets SIGKILL."""
_PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans(parent: int | None = None) -> None:
    """Make this process the subreaper of its descendants (Linux), and die with `parent`
    (default: the current parent; pass the pid taken before the fork, so that a parent that
    died in between is noticed)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # no prctl: orphans go to init
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    die_with_parent(os.getppid() if parent is None else parent)


def end_descendants(grace: float = GRACE_S, spare: Collection[int] = ()) -> None:
    """SIGTERM every descendant of this process, SIGKILL the ones left after `grace`, reap all;
    the processes in `spare`, and their descendants, are left alone."""
    if not _has_children(spare):
        return
    deadline = time.monotonic() + grace
    _signal_all(descendants(spare=spare), signal.SIGTERM)
    while time.monotonic() < deadline:
        _reap()
        if not _has_children(spare):
            return
        time.sleep(0.01)
    for _ in range(10):  # a killed parent hands its own children on to this process
        left = descendants(spare=spare)
        if not left:
            break
        _signal_all(left, signal.SIGKILL)
        time.sleep(0.01)
        _reap()
    _reap()


def descendants(root: int | None = None, spare: Collection[int] = ()) -> list[int]:
    """The ids of every living descendant of `root` (default: this process), from /proc,
    but those in `spare` and theirs."""
    root = os.getpid() if root is None else root
    parents: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields and fields[0] != b"Z":  # a zombie is dead already: reaping it is enough
            parents.setdefault(int(fields[1]), []).append(int(name))
    found: list[int] = []
    frontier = [root]
    while frontier:
        children = [pid for pid in parents.get(frontier.pop(), []) if pid not in spare]
        found += children
        frontier += children
    return found


def _has_children(spare: Collection[int] = ()) -> bool:
    _reap()
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    if not spare:
        return True
    children = _children()
    return children is None or bool(children - set(spare))


def _children() -> set[int] | None:
    """This process's children, from /proc (None where the kernel does not list them)."""
    found: set[int] = set()
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", "rb") as file:
                found.update(int(pid) for pid in file.read().split())
    except (OSError, ValueError):
        return None
    return found


def _reap() -> None:
    """Collect the exit status of every child that has exited."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)

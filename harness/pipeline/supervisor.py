"""Running the project's own agents under supervision: a crash errors one case, not the run.

A project agent (or tool) is code the team is in the middle of breaking: it may call
`os._exit`, die of a signal or segfault in a native extension, or start processes that would
outlive the run. Its cases therefore run in a long-lived worker process, one per job, made
once and reused for case after case; the parent hands it case numbers over a pipe and gets
each `CaseReport` back as msgpack, as `harness._parallel` does for bulk work.

- A worker that dies mid-case gives that case a crash error naming how it died, and a fresh
  worker takes the next case. A worker that does not answer within the case's timeout plus a
  grace is killed the same way.
- Each worker leads its own session, so a Ctrl-C at the terminal reaches only the harness,
  which then stops the workers. It adopts the orphans of what its agent starts (a subreaper,
  on Linux), and after each case it ends every process still running under it: SIGTERM, then
  SIGKILL after a short grace. Nothing an agent starts outlives its case.
- With `agent_memory_mb`, the worker's address space is capped at what it uses when it starts
  plus that much: an agent that allocates without end gets a `MemoryError` (its case errors)
  or, at worst, kills its worker, which is a crash of its own case.
- In a worker a case runs on the main thread under a timer signal (`watchdog`), not on a
  thread of its own: a worker whose case timed out answers, then retires, and the next case
  gets a fresh one.

Workers are forked, so they inherit the setup and the cases without pickling either; where
there is no fork the cases run in this process, unsupervised.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from multiprocessing import Pipe
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Any

import msgspec

from harness.errors import ConfigError
from harness.fixtures.format import Case
from harness.pipeline import agent_pool
from harness.pipeline.case import run_case
from harness.pipeline.plugins import quiet_stdout
from harness.pipeline.reaping import adopt_orphans, end_descendants
from harness.pipeline.setup import Setup
from harness.pipeline.watchdog import take_expired
from harness.replay.process import end_group, limit_memory
from harness.reports.model import CaseReport

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["ANSWER_GRACE_S", "can_supervise", "run_supervised"]

ANSWER_GRACE_S = 5.0
"""Seconds past the case timeout before a silent worker is killed (its own watchdog fires first)."""
_REPORT, _RETIRING, _CONFIG = b"R", b"X", b"C"
_encode = msgspec.msgpack.Encoder().encode
_decode_report = msgspec.msgpack.Decoder(CaseReport).decode


def can_supervise() -> bool:
    """Whether workers can be forked here (a POSIX system)."""
    return hasattr(os, "fork")


def run_supervised(cases: Sequence[Case], setup: Setup, jobs: int) -> Iterator[CaseReport]:
    """Yield each case's report, in order, each case run in one of `jobs` supervised workers.

    Raises:
        ConfigError: The agent factory built something that is not an agent.
    """
    workers = [_Worker(cases, setup) for _ in range(max(1, min(jobs, len(cases))))]
    done: dict[int, CaseReport] = {}
    busy: dict[_Worker, tuple[int, float]] = {}
    upcoming, emitted = 0, 0
    try:
        while emitted < len(cases):
            for worker in workers:
                if worker not in busy and upcoming < len(cases):
                    busy[worker] = (upcoming, worker.submit(upcoming))
                    upcoming += 1
            soonest = min(deadline for _, deadline in busy.values())
            left = None if soonest == float("inf") else max(0.0, soonest - _now())
            ready = wait([worker.connection for worker in busy], left)
            for worker in list(busy):
                index, deadline = busy[worker]
                if worker.connection in ready:
                    done[index] = worker.receive(cases[index])
                elif _now() >= deadline:
                    done[index] = worker.timed_out(cases[index])
                else:
                    continue
                del busy[worker]
            while emitted in done:
                yield done.pop(emitted)
                emitted += 1
    finally:
        for worker in workers:
            worker.stop()


def _now() -> float:
    return time.monotonic()


class _Worker:
    """One supervised worker process, started on first use and again after it is gone."""

    def __init__(self, cases: Sequence[Case], setup: Setup) -> None:
        self._cases = cases
        self._setup = setup
        self._pid = 0
        self._connection: Connection | None = None

    @property
    def connection(self) -> Connection:
        """The pipe to the running worker."""
        assert self._connection is not None  # set by submit
        return self._connection

    def submit(self, index: int) -> float:
        """Hand the worker case `index` (starting a worker first if none runs); its deadline."""
        if self._connection is None:
            self._start()
        try:
            self.connection.send_bytes(index.to_bytes(8, "little"))
        except OSError:  # it died between cases: a new one takes this case
            self.stop()
            self._start()
            self.connection.send_bytes(index.to_bytes(8, "little"))
        timeout = self._setup.case_timeout
        return _now() + (timeout + ANSWER_GRACE_S if timeout is not None else float("inf"))

    def receive(self, case: Case) -> CaseReport:
        """The worker's report of `case`, or a crash report when it died running it."""
        try:
            message = self.connection.recv_bytes()
        except (EOFError, OSError):
            return self._crashed(case)
        kind, body = message[:1], message[1:]
        if kind == _CONFIG:
            source, key, reason = msgspec.msgpack.decode(body)
            raise ConfigError(source, key, reason)
        if kind == _RETIRING:
            self.stop()
        return _decode_report(body)

    def timed_out(self, case: Case) -> CaseReport:
        """The report of `case`, whose worker never answered: the worker is killed."""
        self.stop()
        timeout = self._setup.case_timeout
        return CaseReport(
            name=case.name,
            source=case.source,
            error=f"case timed out after {timeout:g}s (case_timeout); the agent's process "
            "did not answer and was killed",
        )

    def stop(self) -> None:
        """End the worker and everything it started; a later `submit` starts another."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if self._pid:
            pid, self._pid = self._pid, 0
            end_group(pid, grace=0.5)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)

    def _crashed(self, case: Case) -> CaseReport:
        pid, self._pid = self._pid, 0
        status = 0
        with contextlib.suppress(ChildProcessError):
            _, status = os.waitpid(pid, 0)
        end_group(pid, grace=0.5)  # what it started dies with it
        self.stop()
        return CaseReport(name=case.name, source=case.source, error=_crash_reason(status))

    def _start(self) -> None:
        ours, theirs = Pipe()
        _flush_stdio()  # or the child would write the parent's buffered output again
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the caller's stack
            status = 1
            try:
                ours.close()
                _serve(theirs, self._cases, self._setup, parent)
                status = 0
            finally:
                os._exit(status)
        theirs.close()
        self._pid, self._connection = pid, ours


def _crash_reason(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            how = f"was killed by {signal.Signals(number).name}"
        except ValueError:
            how = f"was killed by signal {number}"
    else:
        how = f"exited with status {os.waitstatus_to_exitcode(status)}"
    return (
        f"the agent's process {how} while running this case (os._exit, a signal, a native "
        "crash or the memory limit); a fresh worker ran the cases after it"
    )


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _serve(
    connection: Connection,
    cases: Sequence[Case],
    setup: Setup,
    parent: int,
) -> None:
    """The worker's loop: run the case asked for, answer with its report, until told to stop."""
    os.setsid()  # its own session and group: terminal signals go to the harness alone
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    agent_pool.end_on_sigterm()  # SIGTERM's default, after ending a reused agent process
    _forget_parent_threads()
    adopt_orphans(parent)  # and die with the harness, even if it died before this line
    quiet_stdout()  # what the project's code prints never reaches the harness's stdout
    try:
        setup = msgspec.structs.replace(setup.loaded(), in_worker=True)
    except ConfigError as exc:
        connection.send_bytes(_CONFIG + _encode([exc.source, exc.key, exc.reason]))
        return
    if setup.memory_mb is not None:
        limit_memory(setup.memory_mb, beyond=_address_space())
    try:
        _answer(connection, cases, setup)
    finally:
        agent_pool.close_pool()


def _answer(connection: Connection, cases: Sequence[Case], setup: Setup) -> None:
    """Run each case asked for and answer with its report, until told to stop."""
    while True:
        try:
            index = int.from_bytes(connection.recv_bytes(), "little")
        except (EOFError, OSError):
            return  # the harness is done, or gone
        try:
            report = run_case(cases[index], setup)  # looked up now: tests stand in for it
        except ConfigError as exc:
            connection.send_bytes(_CONFIG + _encode([exc.source, exc.key, exc.reason]))
            return
        end_descendants(spare=agent_pool.spared())
        retiring = take_expired()
        connection.send_bytes((_RETIRING if retiring else _REPORT) + _encode(report))
        if retiring:
            return


def _forget_parent_threads() -> None:
    """Drop the replay endpoint and the OTLP receiver the parent may have started: their
    threads were not forked."""
    endpoint: Any = sys.modules.get("harness.replay.endpoint")
    if endpoint is not None:
        endpoint.forget_shared_server()
    receiver: Any = sys.modules.get("harness.replay.otlp")
    if receiver is not None:
        receiver.forget_shared_receiver()


def _address_space() -> int:
    """Bytes of address space this process uses now (0 where that cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as file:
            return int(file.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0

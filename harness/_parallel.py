"""Loading and running cases in worker processes (`--jobs`), with the serial run's results.

Cases go to workers in contiguous chunks and come back in suite order. Where it is safe (Linux,
no other thread alive) workers are forked and read the parent's already validated cases
directly; elsewhere each chunk travels as msgpack. Results always come back as msgpack, which
msgspec encodes and decodes far faster than pickle.

A worker that dies (a segfault, `os._exit`, the OOM killer) breaks the pool: every case that
was in flight is then run again, alone, in a fresh pool, so the case that crashes errors on its
own and its neighbours get their real verdicts.

A large suite is also loaded in several processes: the parent reads, decodes and validates
the first share of the files while forked children do the others and hand back the admitted
cases as msgpack; the parent then checks the suite as a whole itself.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import IO, TYPE_CHECKING

import msgspec

from harness.errors import FixtureError
from harness.fixtures.format import Case
from harness.fixtures.limits import Limits
from harness.reports.model import CaseReport

if TYPE_CHECKING:
    from harness.pipeline.setup import Setup
import gc
from contextlib import contextmanager

__all__ = ["CRASH_MESSAGE", "cpu_count", "gc_paused", "load_in_workers", "run_in_workers"]

CRASH_MESSAGE = "the worker process running this case crashed (it exited without a result)"
_encode = msgspec.msgpack.Encoder().encode
_decode_cases = msgspec.msgpack.Decoder(list[Case]).decode
_decode_reports = msgspec.msgpack.Decoder(list[CaseReport]).decode
_decode_loaded = msgspec.msgpack.Decoder(
    tuple[list[Case], list[tuple[str, str | None, str]]]
).decode

# What a worker runs with: set in the parent before a fork (inherited), or by the initializer.
_cases: Sequence[Case] = ()
_setup: Setup | None = None


def cpu_count() -> int:
    """The cores this process may use (`--jobs auto`)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def run_in_workers(cases: Sequence[Case], setup: Setup, jobs: int) -> Iterator[CaseReport]:
    """Run `cases` on `jobs` worker processes, yielding the reports in case order.

    Stopping the iteration early (Ctrl-C, SIGTERM) cancels the chunks not yet started.
    """
    global _cases, _setup
    _cases, _setup = cases, setup  # inherited by forked workers; unused otherwise
    try:
        chunks = _chunks(len(cases), jobs)
        while chunks:
            chunks = yield from _run_chunks(cases, setup, jobs, chunks)
    finally:
        _cases, _setup = (), None


def load_in_workers(
    directory: str, paths: Sequence[str], links: frozenset[str], limits: Limits, jobs: int
) -> tuple[list[Case], list[FixtureError]] | None:
    """Load `paths` in `jobs` processes: the admitted cases and the rejections, in order.

    The suite is cut in `jobs` contiguous shares. This process loads the first itself while
    a forked child loads each other share into a temp file as msgpack, which this process
    then decodes. Plain forks, not a pool: a pool's result thread would contend for the GIL
    with this process's own share. None where forking is not safe, or when a child fails:
    the caller then loads serially.
    """
    from harness.fixtures.suite import load_paths

    if jobs < 2 or not _can_fork():
        return None
    size = -(-len(paths) // jobs)
    shares = [range(start, min(start + size, len(paths))) for start in range(0, len(paths), size)]
    children: list[tuple[int, IO[bytes]]] = []
    try:
        for share in shares[1:]:
            try:
                children.append(_fork_loader(directory, paths, share, links, limits))
            except OSError:  # no process or temp file to be had: load serially
                return None
        cases, problems = load_paths(directory, paths[: shares[0].stop], links, limits)
        while children:
            pid, out = children.pop(0)
            _, status = os.waitpid(pid, 0)
            with out:
                if status != 0:
                    return None
                out.seek(0)
                admitted, rejected = _decode_loaded(out.read())
            cases += admitted
            problems += (FixtureError(*problem) for problem in rejected)
        return cases, problems
    finally:
        for pid, out in children:  # interrupted, or a child failed: stop the rest
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            out.close()


def _fork_loader(
    directory: str, paths: Sequence[str], share: range, links: frozenset[str], limits: Limits
) -> tuple[int, IO[bytes]]:
    """Fork a child that loads `share` of `paths` into a temp file and exits (0: written)."""
    from harness.fixtures.suite import load_paths

    out = tempfile.TemporaryFile()  # noqa: SIM115 (handed to the caller, who closes it)
    try:
        pid = os.fork()
    except OSError:
        out.close()
        raise
    if pid:
        return pid, out
    status = 1
    try:  # the child: never returns into the caller's stack
        cases, problems = load_paths(directory, paths[share.start : share.stop], links, limits)
        out.write(_encode((cases, [(p.path, p.location, p.reason) for p in problems])))
        out.flush()
        status = 0
    finally:
        os._exit(status)


def _run_chunks(
    cases: Sequence[Case], setup: Setup, jobs: int, chunks: list[range]
) -> Generator[CaseReport, None, list[range]]:
    """Yield the chunks' reports in order; return the chunks left when a worker crashed."""
    forked = _can_fork()
    pool = _pool(setup, jobs, forked)
    try:
        futures = [
            pool.submit(_run_chunk, span, None if forked else _payload(cases, span))
            for span in chunks
        ]
        for position, (span, future) in enumerate(zip(chunks, futures, strict=True)):
            results = _result(future)
            if results is None:  # the pool broke: pin the crash, then go on in a new pool
                pool.shutdown(wait=False, cancel_futures=True)
                for index in span:
                    yield _run_alone(cases, index, setup)
                return chunks[position + 1 :]
            yield from results
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return []


def _can_fork() -> bool:
    # fork copies only the calling thread: safe while no other thread could hold a lock.
    return sys.platform == "linux" and threading.active_count() == 1


def _chunks(count: int, jobs: int) -> list[range]:
    size = max(1, min(512, count // (jobs * 4)))
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


def _payload(cases: Sequence[Case], span: range) -> bytes:
    return _encode([cases[i] for i in span])


def _pool(setup: Setup, jobs: int, forked: bool) -> ProcessPoolExecutor:
    if forked:
        return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))
    methods = multiprocessing.get_all_start_methods()
    method = "forkserver" if "forkserver" in methods else "spawn"
    return ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context(method),
        initializer=_initialize,
        initargs=(setup,),
    )


def _initialize(setup: Setup) -> None:
    global _setup
    _setup = setup


def _run_chunk(span: range, payload: bytes | None) -> bytes:
    from harness.pipeline.case import run_case

    assert _setup is not None  # inherited through fork, or set by _initialize
    cases: Sequence[Case] = (
        _decode_cases(payload) if payload is not None else _cases[span.start : span.stop]
    )
    return _encode([run_case(case, _setup) for case in cases])


def _result(future: Future[bytes]) -> list[CaseReport] | None:
    try:
        return _decode_reports(future.result())
    except BrokenProcessPool:
        return None


def _run_alone(cases: Sequence[Case], index: int, setup: Setup) -> CaseReport:
    forked = _can_fork()
    with _pool(setup, 1, forked) as pool:
        span = range(index, index + 1)
        results = _result(pool.submit(_run_chunk, span, None if forked else _payload(cases, span)))
    case = cases[index]
    if results:
        return results[0]
    return CaseReport(name=case.name, source=case.source, error=CRASH_MESSAGE)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic GC for the block, restoring its previous state after, always."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _promote()
            gc.enable()


def _promote() -> None:
    """Move every tracked object to the oldest generation, unscanned (freeze, then unfreeze).

    Skipped when the process keeps objects frozen on purpose (a pre-fork server, say):
    unfreezing would hand those back to the collector.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()

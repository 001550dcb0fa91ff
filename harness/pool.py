"""Running cases in worker processes (`--jobs`), with the serial run's order and verdicts.

Cases go to workers in contiguous chunks and come back in suite order. Where it is safe (Linux,
no other thread alive) workers are forked and read the parent's already validated cases
directly; elsewhere each chunk travels as msgpack. Results always come back as msgpack, which
msgspec encodes and decodes far faster than pickle.

A worker that dies (a segfault, `os._exit`, the OOM killer) breaks the pool: every case that
was in flight is then run again, alone, in a fresh pool, so the case that crashes errors on its
own and its neighbours get their real verdicts.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

import msgspec

from harness.case import Case
from harness.report import CaseReport

if TYPE_CHECKING:
    from harness.runner import Setup

__all__ = ["CRASH_MESSAGE", "cpu_count", "run_in_workers"]

CRASH_MESSAGE = "the worker process running this case crashed (it exited without a result)"
_encode = msgspec.msgpack.Encoder().encode
_decode_cases = msgspec.msgpack.Decoder(list[Case]).decode
_decode_reports = msgspec.msgpack.Decoder(list[CaseReport]).decode

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
    from harness.runner import run_case

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

"""Bulk work in worker processes, with the results the serial loop would give, in its order.

`run_in_workers` hands items to a process pool in contiguous chunks and yields the results
in item order. Where it is safe (Linux, no other thread alive) workers are forked and read
the parent's items directly; elsewhere each chunk travels as msgpack. Results always come
back as msgpack, which msgspec encodes and decodes far faster than pickle.

A worker that dies (a segfault, `os._exit`, the OOM killer) breaks the pool: every item that
was in flight is then run again, alone, in a fresh pool, so the item that crashes gets the
caller's crash result on its own and its neighbours get their real results. The broken pool
ends its other workers with SIGTERM; a forked worker would inherit the parent's SIGTERM
handler and print a traceback as it stops, so each process forked here restores the default
(a quiet end) before it runs any code: the crash shows once, as its item's result.

`fork_shares` cuts the items in contiguous shares: the parent works on the first while
forked children work on the others and hand their results back as msgpack.

`gc_paused` holds off the cyclic garbage collector around such bulk work. Loading a suite or
replaying it allocates many small acyclic objects that reference counting frees on its own,
so a full collection in between only rescans the growing heap.

Nothing here knows what the items are: the callers (loading a suite, running one) bring the
task and the msgspec types that carry its items and results.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, TypeVar

import msgspec

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

# multiprocessing, concurrent.futures and tempfile are imported where used: `gc_paused` and
# `cpu_count` are on every run's start-up path, and most runs never start a worker.

__all__ = ["cpu_count", "fork_shares", "gc_paused", "run_in_workers"]

Item = TypeVar("Item")
State = TypeVar("State")
Result = TypeVar("Result")

_encode = msgspec.msgpack.Encoder().encode

# What a worker runs: set in the parent before a fork (inherited), or by `_initialize`.
_task: Callable[[Any, Any], Any] | None = None
_state: Any = None
_items: Sequence[Any] = ()
"""The parent's items, for forked workers (chunks then travel as ranges only)."""
_decode_items: Callable[[bytes], list[Any]] | None = None
"""How a chunk arrives in a worker that was not forked."""


_forking = False
"""Whether a process forked now is one of ours (a worker or a share's child)."""


def _quiet_stop_in_child() -> None:
    """In a worker just forked: SIGTERM ends it the default way, without a traceback."""
    if _forking:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_quiet_stop_in_child)


@contextmanager
def _forks_are_workers() -> Iterator[None]:
    global _forking
    previous, _forking = _forking, True
    try:
        yield
    finally:
        _forking = previous


def cpu_count() -> int:
    """The cores this process may use (`--jobs auto`)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def run_in_workers(
    task: Callable[[Item, State], Result],
    items: Sequence[Item],
    state: State,
    jobs: int,
    *,
    item_type: type[Item],
    result_type: type[Result],
    crashed: Callable[[int], Result],
) -> Iterator[Result]:
    """Yield `task(item, state)` for each of `items`, in order, run on `jobs` worker processes.

    `task` and `state` must pickle, and `item_type`/`result_type` must be types msgspec
    encodes. Stopping the iteration early (Ctrl-C, SIGTERM) cancels the chunks not yet started.

    Args:
        task: The work for one item; a module-level function.
        items: What to work on.
        state: The second argument of every `task` call, the same for all items.
        jobs: How many worker processes.
        item_type: The type of an item, to decode chunks sent to workers that were not forked.
        result_type: The type of a result, to decode what the workers send back.
        crashed: The result for the item at this index, when its worker dies even with the
            item run alone.
    """
    global _task, _state, _items
    decode_results = msgspec.msgpack.Decoder(list[result_type]).decode  # type: ignore[valid-type]
    _task, _state, _items = task, state, items  # inherited by forked workers; unused otherwise
    try:
        chunks = _chunks(len(items), jobs)
        with _forks_are_workers():
            while chunks:
                chunks = yield from _run_chunks(
                    items, jobs, chunks, (task, state, item_type), decode_results, crashed
                )
    finally:
        _task, _state, _items = None, None, ()


def fork_shares(
    work: Callable[[Sequence[Item]], Result],
    items: Sequence[Item],
    jobs: int,
    result_type: type[Result],
) -> list[Result] | None:
    """`work` on each of `jobs` contiguous shares of `items`, in processes: the results in order.

    This process works on the first share itself while a forked child works on each other
    share and writes its result into a temp file as msgpack, which this process then decodes.
    Plain forks, not a pool: a pool's result thread would contend for the GIL with this
    process's own share.

    Returns:
        One result per share, or None where forking is not safe, or when a child fails: the
        caller then does the work serially.
    """
    if jobs < 2 or not items or not _can_fork():
        return None
    size = -(-len(items) // jobs)
    shares = [range(start, min(start + size, len(items))) for start in range(0, len(items), size)]
    decode = msgspec.msgpack.Decoder(result_type).decode
    children: list[tuple[int, IO[bytes]]] = []
    try:
        for share in shares[1:]:
            try:
                with _forks_are_workers():
                    children.append(_fork_share(work, items[share.start : share.stop]))
            except OSError:  # no process or temp file to be had: work serially
                return None
        results = [work(items[: shares[0].stop])]
        while children:
            pid, out = children.pop(0)
            _, status = os.waitpid(pid, 0)
            with out:
                if status != 0:
                    return None
                out.seek(0)
                results.append(decode(out.read()))
        return results
    finally:
        for pid, out in children:  # interrupted, or a child failed: stop the rest
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            out.close()


def _fork_share(
    work: Callable[[Sequence[Item]], object], share: Sequence[Item]
) -> tuple[int, IO[bytes]]:
    """Fork a child that writes `work(share)` into a temp file and exits (0: written)."""
    import tempfile

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
        out.write(_encode(work(share)))
        out.flush()
        status = 0
    finally:
        os._exit(status)


def _run_chunks(
    items: Sequence[Item],
    jobs: int,
    chunks: list[range],
    initargs: tuple[Callable[[Item, State], Result], State, type[Item]],
    decode: Callable[[bytes], list[Result]],
    crashed: Callable[[int], Result],
) -> Generator[Result, None, list[range]]:
    """Yield the chunks' results in order; return the chunks left when a worker crashed."""
    forked = _can_fork()
    pool = _pool(initargs, jobs, forked)
    try:
        futures = [
            pool.submit(_run_chunk, span, None if forked else _payload(items, span))
            for span in chunks
        ]
        for position, (span, future) in enumerate(zip(chunks, futures, strict=True)):
            results = _result(future, decode)
            if results is None:  # the pool broke: pin the crash, then go on in a new pool
                pool.shutdown(wait=False, cancel_futures=True)
                for index in span:
                    yield _run_alone(items, index, initargs, decode, crashed)
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


def _payload(items: Sequence[Any], span: range) -> bytes:
    return _encode([items[i] for i in span])


def _pool(initargs: tuple[Any, Any, Any], jobs: int, forked: bool) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if forked:
        return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))
    methods = multiprocessing.get_all_start_methods()
    method = "forkserver" if "forkserver" in methods else "spawn"
    return ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context(method),
        initializer=_initialize,
        initargs=initargs,
    )


def _initialize(task: Callable[[Any, Any], Any], state: Any, item_type: type[Any]) -> None:
    global _task, _state, _decode_items
    _task, _state = task, state
    _decode_items = msgspec.msgpack.Decoder(list[item_type]).decode  # type: ignore[valid-type]


def _run_chunk(span: range, payload: bytes | None) -> bytes:
    assert _task is not None  # inherited through fork, or set by _initialize
    if payload is None:
        items: Sequence[Any] = _items[span.start : span.stop]
    else:
        assert _decode_items is not None
        items = _decode_items(payload)
    return _encode([_task(item, _state) for item in items])


def _result(future: Future[bytes], decode: Callable[[bytes], list[Result]]) -> list[Result] | None:
    from concurrent.futures.process import BrokenProcessPool

    try:
        return decode(future.result())
    except BrokenProcessPool:
        return None


def _run_alone(
    items: Sequence[Item],
    index: int,
    initargs: tuple[Callable[[Item, State], Result], State, type[Item]],
    decode: Callable[[bytes], list[Result]],
    crashed: Callable[[int], Result],
) -> Result:
    forked = _can_fork()
    with _pool(initargs, 1, forked) as pool:
        span = range(index, index + 1)
        future = pool.submit(_run_chunk, span, None if forked else _payload(items, span))
        results = _result(future, decode)
    if results:
        return results[0]
    return crashed(index)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic GC for the block, restoring its previous state after, always.

    When the pause ends, what was made during it goes straight to the oldest generation, as
    if it had survived the young collections: otherwise the first allocation after would scan
    all of it once more (about 10 ms after loading 10k fixtures).
    """
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

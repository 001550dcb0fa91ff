"""Bulk work in worker processes, with the results the serial loop would give, in its order.

`run_in_workers` hands items to a process pool in contiguous chunks and yields the results
in item order. Where it is safe (Linux, no other thread alive) workers are forked and read
the parent's items directly; elsewhere each chunk travels as msgpack. Results always come
back as msgpack, which msgspec encodes and decodes far faster than pickle.

A worker that dies (a segfault, `os._exit`, the OOM killer) breaks the pool. The first chunk
left without results then runs again, its items in turn in a one-worker pool; one that gets
no result there runs once more on its own (forked where it can be, so its exit status is
known), and if it dies again it gets the caller's crash result and one line on stderr naming
it and how its process died. Its neighbours get their real results; the chunks after go back
to a full pool. A crash costs a few process starts, never one per item, and no traceback:
the broken pool ends its other workers with SIGTERM, and a forked worker would inherit the
parent's SIGTERM handler and print one as it stops, so each process forked here restores
the default (a quiet end) before it runs any code. Every worker dies with this process,
whatever signal ends it (`harness.lifeline`): none is left blocked on a pipe.

`fork_shares` cuts the items in contiguous shares: the parent works on the first while
forked children work on the others and hand their results back as msgpack.

Nothing here knows what the items are: the callers bring the task and its msgspec types.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

import msgspec

from harness.lifeline import die_with_parent, forks_are_workers

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

# multiprocessing, concurrent.futures and tempfile are imported where used: `cpu_count` is
# on every run's start-up path, and most runs never start a worker.

__all__ = ["cpu_count", "fork_shares", "run_in_workers"]

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
    describe: Callable[[int], str] | None = None,
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
        describe: What the item at this index is, for the one stderr line of its crash
            (default: `item 3 of 40`).
    """
    global _task, _state, _items
    decode_results = msgspec.msgpack.Decoder(list[result_type]).decode  # type: ignore[valid-type]
    _task, _state, _items = task, state, items  # inherited by forked workers; unused otherwise
    if describe is None:
        describe = lambda index: f"item {index + 1} of {len(items)}"  # noqa: E731
    recovery = _Recovery(items, (task, state, item_type), decode_results, crashed, describe)
    try:
        chunks = _chunks(len(items), jobs)
        with forks_are_workers():
            while chunks:
                chunks = yield from _run_chunks(jobs, chunks, recovery)
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
                with forks_are_workers():
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


class _Recovery(NamedTuple, Generic[Item, State, Result]):
    """What running the items, and recovering from a crash, needs."""

    items: Sequence[Item]
    initargs: tuple[Callable[[Item, State], Result], State, type[Item]]
    decode: Callable[[bytes], list[Result]]
    crashed: Callable[[int], Result]
    describe: Callable[[int], str]


def _run_chunks(
    jobs: int, chunks: list[range], recovery: _Recovery[Item, State, Result], alone: bool = False
) -> Generator[Result, None, list[range]]:
    """Yield the chunks' results in order; return the chunks left when a worker crashed, after
    `_isolate` on the first chunk left without results (`alone`: run its one item alone)."""
    from concurrent.futures.process import BrokenProcessPool

    forked = _can_fork()
    pool = _pool(recovery.initargs, jobs, forked)
    try:
        futures: list[Future[bytes]] = []
        with contextlib.suppress(BrokenProcessPool):  # broken already: the rest gets no result
            for span in chunks:
                payload = None if forked else _payload(recovery.items, span)
                futures.append(pool.submit(_run_chunk, span, payload))
        for position, span in enumerate(chunks):
            results = _result(futures[position], recovery.decode) if futures[position:] else None
            if results is None:  # the pool broke: pin the crash, then go on in a new pool
                pool.shutdown(wait=True, cancel_futures=True)  # its threads gone: forks are safe
                if alone:
                    yield _run_alone(span.start, recovery)
                else:
                    yield from _isolate(span, recovery)
                return chunks[position + 1 :]
            yield from results
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return []


def _isolate(span: range, recovery: _Recovery[Item, State, Result]) -> Iterator[Result]:
    """The results of a chunk whose worker died: its items in turn in one worker, each one
    that gets no result there run on its own."""
    chunks = [range(index, index + 1) for index in span]
    while chunks:
        chunks = yield from _run_chunks(1, chunks, recovery, alone=True)


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
    die_with_parent(os.getppid())  # a spawned worker: tied to the process that started it
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


def _run_alone(index: int, recovery: _Recovery[Item, State, Result]) -> Result:
    """The item's result, run on its own; the crash result if its process dies even so, with
    one line on stderr naming the item and how its process died."""
    items, span = recovery.items, range(index, index + 1)
    outcome = _alone_in_fork(items[index : index + 1], recovery) if _can_fork() else None
    if outcome is None:  # no fork to be had: a pool of one, which cannot say how it died
        with _pool(recovery.initargs, 1, False) as pool:
            future = pool.submit(_run_chunk, span, _payload(items, span))
            outcome = _result(future, recovery.decode) or -1
    if isinstance(outcome, list):
        return outcome[0]
    death = "exited without a result" if outcome < 0 else _death(outcome)
    _say(f"harness: the worker process running {recovery.describe(index)} {death}")
    return recovery.crashed(index)


def _alone_in_fork(
    share: Sequence[Item], recovery: _Recovery[Item, State, Result]
) -> list[Result] | int | None:
    """The results of `share` worked on in a forked child, or the wait status of a child that
    failed, or None when no child could be had."""
    task, state, _ = recovery.initargs
    try:
        pid, out = _fork_share(lambda items: [task(item, state) for item in items], share)
    except OSError:
        return None
    with out:
        try:
            _, status = os.waitpid(pid, 0)
        except BaseException:  # interrupted: the child goes too
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            raise
        if status != 0:
            return status
        out.seek(0)
        return recovery.decode(out.read())


def _death(status: int) -> str:
    """How a process with this wait status ended, as `was killed by SIGKILL`."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"was killed by {signal.Signals(number).name}"
        except ValueError:
            return f"was killed by signal {number}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def _say(line: str) -> None:
    """One line on stderr; a stderr that is gone or closed costs nothing."""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

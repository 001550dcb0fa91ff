"""Bulk work in worker processes (results in order, crashes pinned to their item) and gc_paused."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Sequence

import msgspec
import pytest

from harness import _parallel
from harness._parallel import fork_shares, gc_paused, run_in_workers


class Point(msgspec.Struct, frozen=True):
    """An item and result type that msgpack must carry as itself."""

    x: int


class Share(msgspec.Struct, frozen=True):
    """What one share's work saw: the process it ran in and its items."""

    pid: int
    items: list[int]


def square_or_crash(item: int, state: tuple[int, int]) -> int:
    """The square of `item`; the worker dies on `crash_on` (never in the test process)."""
    crash_on, parent = state
    if item == crash_on and os.getpid() != parent:
        os._exit(3)
    return item * item


def doubled(item: Point, state: int) -> Point:
    return Point(x=item.x * 2 + state)


def where(share: Sequence[int]) -> Share:
    return Share(pid=os.getpid(), items=list(share))


@pytest.fixture(params=[True, False], ids=["fork", "forkserver"])
def forked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Workers forked (items inherited) or started by a server (items sent as msgpack)."""
    fork: bool = request.param
    monkeypatch.setattr(_parallel, "_can_fork", lambda: fork)  # other tests may leave threads
    return fork


@pytest.mark.usefixtures("forked")
def test_results_come_in_item_order_and_a_crash_is_pinned_to_its_item() -> None:
    """The item whose worker dies gets `crashed(index)`; its chunk's neighbours their results."""
    items = list(range(40))  # two workers: chunks of five, so item 7 shares its chunk
    crashes: list[int] = []

    def crashed(index: int) -> int:
        crashes.append(index)
        return -1

    results = run_in_workers(
        square_or_crash,
        items,
        (7, os.getpid()),
        2,
        item_type=int,
        result_type=int,
        crashed=crashed,
    )
    assert list(results) == [-1 if i == 7 else i * i for i in items]
    assert crashes == [7]


@pytest.mark.usefixtures("forked")
def test_items_state_and_results_keep_their_types() -> None:
    """Every worker gets the state; items and results arrive as their msgspec types."""
    items = [Point(x=i) for i in range(9)]
    results = list(
        run_in_workers(
            doubled, items, 100, 3, item_type=Point, result_type=Point, crashed=lambda i: Point(x=0)
        )
    )
    assert results == [Point(x=i * 2 + 100) for i in range(9)]


def test_fork_shares_runs_the_first_share_here_and_the_rest_in_children(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One result per contiguous share, in order; only the first is worked on in this process."""
    monkeypatch.setattr(_parallel, "_can_fork", lambda: True)
    shares = fork_shares(where, range(10), 3, Share)
    assert shares is not None
    assert [share.items for share in shares] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert shares[0].pid == os.getpid()
    assert len({share.pid for share in shares}) == 3


def test_fork_shares_gives_none_when_a_child_dies(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that exits without its result: None, so that the caller works serially."""
    parent = os.getpid()

    def die_in_children(share: Sequence[int]) -> Share:
        if os.getpid() != parent:
            os._exit(3)
        return where(share)

    monkeypatch.setattr(_parallel, "_can_fork", lambda: True)
    assert fork_shares(die_in_children, range(10), 2, Share) is None


def test_fork_shares_gives_none_where_it_cannot_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unsafe to fork, fork refused, or one job: None, and no work done here."""
    seen: list[Sequence[int]] = []

    def record(share: Sequence[int]) -> Share:
        seen.append(share)
        return where(share)

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(_parallel, "_can_fork", lambda: False)
    assert fork_shares(record, range(10), 2, Share) is None
    monkeypatch.setattr(_parallel, "_can_fork", lambda: True)
    assert fork_shares(record, range(10), 1, Share) is None
    monkeypatch.setattr(os, "fork", no_fork)
    assert fork_shares(record, range(10), 2, Share) is None
    assert seen == []


@pytest.fixture
def collector() -> Iterator[None]:
    """The GC enabled, with nothing frozen, and restored after."""
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    if not was_enabled:
        gc.disable()


@pytest.mark.usefixtures("collector")
def test_block_runs_with_collection_off_and_leaves_it_on() -> None:
    """The collector is off inside and back on after, even when the block raises."""
    seen: list[bool] = []

    def fail_paused() -> None:
        with gc_paused():
            seen.append(gc.isenabled())
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fail_paused()
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector")
def test_what_the_block_made_is_not_left_young() -> None:
    """Objects made during the pause join the oldest generation: no young scan of them after."""
    with gc_paused():
        made = [[i] for i in range(50_000)]
    newest = made[-1]
    assert any(item is newest for item in gc.get_objects(generation=2))
    assert gc.get_freeze_count() == 0
    assert gc.is_tracked(newest)


@pytest.mark.usefixtures("collector")
@pytest.mark.usefixtures("collector")
def test_objects_frozen_by_the_process_stay_frozen() -> None:
    """A process that froze objects on purpose keeps them frozen."""
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    with gc_paused():
        _ = [[i] for i in range(1_000)]
    # Frozen objects that die meanwhile leave the count (another thread may free some), but an
    # unfreeze would empty it: most of them must still be frozen.
    assert gc.get_freeze_count() > frozen // 2


@pytest.mark.usefixtures("collector")
def test_nested_pause_leaves_the_outer_one_paused() -> None:
    """An inner pause ending does not turn collection back on under an outer one."""
    with gc_paused():
        with gc_paused():
            pass
        assert not gc.isenabled()


def test_importing_it_loads_no_process_machinery() -> None:
    """`gc_paused` is on every run's start-up path: workers' modules load only when used."""
    import subprocess
    import sys

    heavy = ("multiprocessing", "concurrent.futures", "tempfile")
    code = f"import sys, harness._parallel; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def sigterm_is_default(item: int, state: None) -> bool:
    """Whether SIGTERM would end this process the default way, quietly."""
    import signal

    return signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_workers_stop_quietly_on_sigterm_whatever_the_parent_handles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A broken pool ends the other workers with SIGTERM: a forked worker must not inherit the
    parent's raising handler (it printed a multiprocessing traceback as it stopped)."""
    import signal

    def raising(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_parallel, "_can_fork", lambda: True)
    previous = signal.signal(signal.SIGTERM, raising)
    try:
        results = list(
            run_in_workers(
                sigterm_is_default,
                list(range(8)),
                None,
                2,
                item_type=int,
                result_type=bool,
                crashed=lambda index: False,
            )
        )
        assert signal.getsignal(signal.SIGTERM) is raising  # the parent keeps its own
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert results == [True] * 8


def test_only_our_own_forks_reset_sigterm() -> None:
    """A fork outside the harness's workers (a project's own) keeps the handler it inherits."""
    import signal

    def keep(signum: int, frame: object) -> None:
        pass

    previous = signal.signal(signal.SIGTERM, keep)
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0 if signal.getsignal(signal.SIGTERM) is keep else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert status == 0

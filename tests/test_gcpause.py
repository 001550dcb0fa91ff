"""gc_paused: no collection during the block, and none of what it made rescanned after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from harness._parallel import gc_paused


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
def test_objects_frozen_by_the_process_stay_frozen() -> None:
    """A process that froze objects on purpose keeps them frozen."""
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    with gc_paused():
        _ = [[i] for i in range(1_000)]
    assert gc.get_freeze_count() == frozen


def test_nested_pause_leaves_the_outer_one_paused() -> None:
    """An inner pause ending does not turn collection back on under an outer one."""
    with gc_paused():
        with gc_paused():
            pass
        assert not gc.isenabled()

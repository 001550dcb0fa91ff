"""Pausing the cyclic garbage collector around bulk work that creates no garbage cycles.

Loading a suite or replaying it allocates many small acyclic objects that reference counting
frees on its own; a full collection in between only rescans the growing heap (see PERF.md).
When the pause ends, what was made during it goes straight to the oldest generation, as if it
had survived the young collections: otherwise the first allocation after would scan all of it
once more (about 10 ms after loading 10k fixtures).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


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

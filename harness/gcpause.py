"""Pausing the cyclic garbage collector around bulk work that creates no garbage cycles.

Loading a suite or replaying it allocates many small acyclic objects that reference counting
frees on its own; a full collection in between only rescans the growing heap (see PERF.md).
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
            gc.enable()

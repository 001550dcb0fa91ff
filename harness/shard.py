"""Shards: a deterministic, balanced slice of a suite, for CI runners that split the work.

Shard `I/N` (1-based, as GitLab's `CI_NODE_INDEX`/`CI_NODE_TOTAL`) takes every N-th case of the
sorted suite starting at the I-th, so shards differ in size by at most one case, every case is
in exactly one shard, and the same suite always splits the same way.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import TypeVar

import msgspec

from harness.errors import UsageError

__all__ = ["Shard", "parse_shard"]

T = TypeVar("T")
_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class Shard(msgspec.Struct, frozen=True, kw_only=True):
    """Which slice of the suite a run covers."""

    index: int
    """1-based index of this shard."""
    total: int
    """How many shards the suite is split into."""

    def select(self, items: Sequence[T]) -> tuple[T, ...]:
        """This shard's items of the sorted suite."""
        return tuple(items[self.index - 1 :: self.total])

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"


def parse_shard(text: str, environ: Mapping[str, str] | None = None) -> Shard:
    """`I/N`, or `auto` for `CI_NODE_INDEX`/`CI_NODE_TOTAL` (GitLab `parallel:`).

    Raises:
        UsageError: The text is not `I/N` with 1 <= I <= N, or `auto` finds no variables.
    """
    if text.strip() == "auto":
        env = os.environ if environ is None else environ
        index, total = env.get("CI_NODE_INDEX"), env.get("CI_NODE_TOTAL")
        if not index or not total:
            raise UsageError(
                "--shard auto: CI_NODE_INDEX and CI_NODE_TOTAL are not set "
                "(GitLab sets them for `parallel:` jobs); pass --shard I/N instead"
            )
        text = f"{index}/{total}"
    match = _SPEC.match(text)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise UsageError(f"--shard: expected I/N with 1 <= I <= N (e.g. 2/4), got {text!r}")
    return Shard(index=int(match[1]), total=int(match[2]))

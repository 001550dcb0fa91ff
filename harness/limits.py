"""Bounds on what the harness reads, so no suite folder can make it read without end."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ["DEFAULT_LIMITS", "Limits"]

Positive = Annotated[int, msgspec.Meta(ge=1)]


class Limits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Input bounds; each is also a `[tool.harness]` key of the same name."""

    max_fixture_bytes: Positive = 10 * 1024 * 1024
    """A fixture file larger than this is refused before it is read."""
    max_nesting: Positive = 64
    """How deep a call's `arguments` may nest arrays and objects."""
    max_fixtures: Positive = 100_000
    """A suite folder with more `*.json` fixtures than this is refused."""
    follow_external_symlinks: bool = False
    """Whether a fixture may be a symlink to a file outside its suite folder."""


DEFAULT_LIMITS = Limits()

"""The `harness` subcommands, one module each: run, trend, history, schema."""

from __future__ import annotations

__all__: list[str] = []

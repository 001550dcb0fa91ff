"""Shared pytest fixtures."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

WriteFixture = Callable[..., Path]


@pytest.fixture
def write_fixture(tmp_path: Path) -> WriteFixture:
    """Write a fixture (a dict as JSON, or raw str/bytes) into tmp_path/suite."""
    suite = tmp_path / "suite"
    suite.mkdir(exist_ok=True)

    def write(name: str, content: dict[str, Any] | str | bytes) -> Path:
        path = suite / name
        if isinstance(content, dict):
            path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_bytes(content)
        return path

    return write

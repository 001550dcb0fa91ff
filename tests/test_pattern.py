"""RE2 patterns: compiled once, errors as data, nothing logged."""

from __future__ import annotations

import pytest

from harness.pattern import compile_pattern


def test_patterns_are_cached() -> None:
    """The same source compiles once."""
    assert compile_pattern("ab+c") is compile_pattern("ab+c")


def test_invalid_pattern_carries_its_error_and_never_matches(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """An invalid pattern reports why, matches nothing, and RE2 prints nothing to stderr."""
    pattern = compile_pattern("(?<=x)y")
    assert pattern.error is not None
    assert not pattern.search("xy")
    assert capfd.readouterr().err == ""


def test_catastrophic_pattern_runs_in_linear_time() -> None:
    """A backtracking bomb is just a pattern to RE2: it completes on a long input."""
    pattern = compile_pattern("(a+)+$")
    assert pattern.error is None
    assert not pattern.search("a" * 100_000 + "!")

"""RE2 patterns: compiled once, errors as data, nothing logged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.fixtures import pattern as pattern_module
from harness.fixtures.pattern import CACHE_SIZE, PARSE_ONLY_LENGTH, compile_pattern, pattern_error


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


def test_patterns_and_texts_are_unicode() -> None:
    """`.` is one character, not one byte; case folding works beyond ASCII."""
    assert compile_pattern("^caf.$").search("café")
    assert compile_pattern("(?i)ÉTÉ").search("un été chaud")
    assert not compile_pattern("^caf.$").search("cafés")


def test_lone_surrogate_in_text_is_searched_not_fatal() -> None:
    """A tool may return a lone surrogate; the rest of the text is still searched."""
    assert compile_pattern("ok$").search("\udc80 ok")
    assert not compile_pattern("^ok").search("\udc80 ok")


def test_cache_is_bounded() -> None:
    """Unique patterns of a big suite do not stay compiled: the oldest are let go."""
    first = compile_pattern("bounded-0")
    for index in range(1, CACHE_SIZE + 1):
        compile_pattern(f"bounded-{index}")
    again = compile_pattern("bounded-0")
    assert again is not first
    assert again.search("a bounded-0 case")


_TOKENS = (
    "a", "é", ".", r"\pL", r"\PN", "[^a]", "[a-z]", r"[\pL\pN\pM]", r"\p{Greek}", "(", ")",
    "(?:", "(?i)", "(?P<n>", "*", "+", "?", "*?", "|", "^", "$", r"\b", r"\d", "[", "]",
    "(?<=", r"\1", "{", "}", "{2}", "{2,}", "{1000}", r"\z", r"\Z", r"\Q", r"\E", "\\",
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=80).map("".join))
def test_load_check_agrees_with_compiling(source: str) -> None:
    """The load-time check admits exactly the patterns that compile, with the same reason."""
    assert pattern_error(source) == compile_pattern(source).error


def test_largest_parse_only_pattern_compiles() -> None:
    """The bound holds with room: the densest pattern checked by parsing alone compiles."""
    densest = r"\pL" * (PARSE_ONLY_LENGTH // 3)
    assert pattern_error(densest) is None
    assert compile_pattern(densest).error is None
    assert compile_pattern(r"\pL{1000}").error is not None  # too large: compiled, refused
    assert pattern_error(r"\pL{1000}") == compile_pattern(r"\pL{1000}").error


def test_load_check_is_right_across_parser_renewals(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reused parser is replaced every few patterns; no answer depends on earlier ones."""
    monkeypatch.setattr(pattern_module._Parser, "ROOM", 2)
    monkeypatch.setattr(pattern_module, "_parser", pattern_module._Parser())
    sources = ["a+", "(b", "c|d", "e)", "[f", "g*", "h(?i)i", "(?<=j)k", "l$"] * 3
    answers = [pattern_error(source) is None for source in sources]
    assert answers == [compile_pattern(source).error is None for source in sources]
    assert answers[:9] == [True, False, True, False, False, True, True, False, True]

"""Quoting and escaping observed text."""

from __future__ import annotations

from harness.text import printable, quote, quote_list


def test_quotes_are_json_and_long_text_is_cut_visibly() -> None:
    """Quoted text is JSON (unicode kept) and cut with a marker past the limit."""
    assert quote('say "hi"\n日本') == '"say \\"hi\\"\\n日本"'
    assert quote("x" * 10, limit=4) == '"xxxx…[6 more chars]"'
    assert quote_list(["a", "b"]) == '["a", "b"]'


def test_control_characters_cannot_repaint_the_terminal() -> None:
    """Escape sequences, newlines and bidi overrides are shown escaped."""
    assert printable("a\x1b[2Jb\nc\u202ed\x00") == "a\\x1b[2Jb\\nc\\u202ed\\x00"
    assert printable("naïve ✓") == "naïve ✓"

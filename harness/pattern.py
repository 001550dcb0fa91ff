"""Regular expressions for `response_matches`, compiled by RE2 and cached.

RE2 matches in time linear in the input, with no look-around or back-references, so a fixture's
pattern can never hang CI. RE2's own logging of bad patterns to stderr is switched off: an
invalid pattern is reported once, as data, by whoever asked.
"""

from __future__ import annotations

import functools
from typing import Any

import re2

__all__ = ["Pattern", "compile_pattern"]

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


class Pattern:
    """A compiled RE2 pattern, or the reason it does not compile."""

    __slots__ = ("_regex", "error", "source")

    def __init__(self, source: str, regex: Any, error: str | None) -> None:
        self.source = source
        self._regex = regex
        self.error = error
        """Why the pattern does not compile, or None when it does."""

    def search(self, text: str) -> bool:
        """Whether the pattern matches anywhere in `text` (never for an invalid pattern)."""
        return self._regex is not None and self._regex.search(text) is not None


@functools.lru_cache(maxsize=8192)
def compile_pattern(source: str) -> Pattern:
    """Compile `source` once; an invalid pattern yields a `Pattern` carrying its error."""
    try:
        return Pattern(source, re2.compile(source, _OPTIONS), None)
    except re2.error as exc:
        return Pattern(source, None, _message(exc))


def _message(exc: Exception) -> str:
    reason = exc.args[0] if exc.args else exc
    if isinstance(reason, bytes):
        return reason.decode("utf-8", "replace")
    return str(reason)

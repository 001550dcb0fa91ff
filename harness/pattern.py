"""Regular expressions for `response_matches`, compiled by RE2 and cached.

RE2 matches in time linear in the input, with no look-around or back-references, so a fixture's
pattern can never hang CI. RE2's own logging of bad patterns to stderr is switched off: an
invalid pattern is reported once, as data, by whoever asked.

Patterns go straight to google-re2's compiled core (`re2._re2`), not through its `re`-like
wrapper: a fixture pattern is only ever asked "does it match anywhere", and the wrapper's
option copying and span decoding cost more than RE2 itself (about 2.5x per compile, 3x per
search). Texts and patterns are UTF-8, as the wrapper encodes them; a lone surrogate, which a
tool may produce, is passed through rather than failing the grade.

The cache is bounded and small: a compiled RE2 with the automaton its first search builds
holds about 5 KB, so a 10k-case suite of unique patterns must not keep them all. Patterns that
many cases share stay cached; a unique one is checked at load (see `pattern_error`) and
compiled when its case is graded.
"""

from __future__ import annotations

import functools
from typing import Any

from re2 import _re2

__all__ = ["CACHE_SIZE", "PARSE_ONLY_LENGTH", "Pattern", "compile_pattern", "pattern_error"]

CACHE_SIZE = 256
"""Compiled patterns kept for reuse, most recently used first."""

PARSE_ONLY_LENGTH = 200
"""Patterns up to this long, with no counted repetition, are validated by parsing alone."""

_OPTIONS = _re2.RE2.Options()
_OPTIONS.log_errors = False
_OPTIONS.never_capture = True  # only "whether", never "where": no groups to track
_ANYWHERE = _re2.RE2.Anchor.UNANCHORED
_NO_MATCH = (-1, -1)


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
        if self._regex is None:
            return False
        data = _utf8(text)
        return bool(self._regex.Match(_ANYWHERE, data, 0, len(data))[0] != _NO_MATCH)


@functools.lru_cache(maxsize=CACHE_SIZE)
def compile_pattern(source: str) -> Pattern:
    """Compile `source`; an invalid pattern yields a `Pattern` carrying its error."""
    regex = _re2.RE2(_utf8(source), _OPTIONS)
    if not regex.ok():
        return Pattern(source, None, _message(regex.error()))
    return Pattern(source, regex, None)


def pattern_error(source: str) -> str | None:
    """Why `source` does not compile, or None: the load-time check, cheaper than compiling.

    A pattern compiles unless it does not parse or its program outgrows RE2's memory budget
    (about 550k instructions by default). Without a counted repetition (`{n}`) a program
    grows at most ~400 instructions per pattern character (`\\pL`, the largest class, is
    1,200 for 3 characters), so a pattern of at most `PARSE_ONLY_LENGTH` characters without
    `{` is far inside the budget and parsing it (about a fifth of the cost of compiling)
    decides. Any other pattern is compiled.
    """
    if len(source) > PARSE_ONLY_LENGTH or "{" in source:
        return compile_pattern(source).error
    if _parser.parses(_utf8(source)):
        return None
    return compile_pattern(source).error  # the parser's reason, as compiling reports it


class _Parser:
    """RE2's parser, as `RE2::Set.Add` runs it (the Set is never compiled).

    A Set keeps what it parsed, so one serves `ROOM` patterns before a fresh one replaces it:
    making a Set per pattern cost a fifth of the parse again.
    """

    ROOM = 1024

    __slots__ = ("_left", "_set")

    def __init__(self) -> None:
        self._set: Any = None
        self._left = 0

    def parses(self, pattern: bytes) -> bool:
        """Whether RE2 parses `pattern`."""
        if self._left <= 0:
            self._set, self._left = _re2.Set(_ANYWHERE, _OPTIONS), self.ROOM
        self._left -= 1
        return bool(self._set.Add(pattern) >= 0)


_parser = _Parser()


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _message(reason: object) -> str:
    if isinstance(reason, bytes):
        return reason.decode("utf-8", "replace")
    return str(reason)

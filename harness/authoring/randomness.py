"""Long random-looking tokens: what the privacy lint flags beyond the credential shapes.

A fixture ships forever and can always use a placeholder, so the lint flags a long token that
looks generated. Reports do not redact these (`harness.credentials` holds what they do): a
report must keep the ids, hashes and payloads a run produced readable.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter

__all__ = ["ENTROPY_BITS", "random_tokens"]

ENTROPY_BITS = 4.2
"""Bits per character above which a long token looks random (hex hashes stay below 4.0)."""


@functools.cache
def _token() -> re.Pattern[str]:
    """A run of 32 or more token characters, a candidate (compiled on first use)."""
    return re.compile(r"[A-Za-z0-9+/_=-]{32,}")


def random_tokens(text: str) -> list[str]:
    """The tokens of 32 or more characters in `text` that look random (see `ENTROPY_BITS`)."""
    return [match[0] for match in _token().finditer(text) if _looks_random(match[0])]


def _looks_random(token: str) -> bool:
    has_digit = any(c.isdigit() for c in token)
    has_letter = any(c.isalpha() for c in token)
    if not (has_digit and has_letter) or _reads_as_words(token):
        return False
    counts = Counter(token)
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= ENTROPY_BITS


_SEPARATORS = str.maketrans("_./", "---")
_VOWELS = frozenset("aeiouy")


def _reads_as_words(token: str) -> bool:
    """Whether `token` is words joined by `-`, `_`, `.` or `/`, as case names and paths are
    (`regression-gh8929-trimmed-final-text`): three parts or more, most of them lower-case
    words with a vowel. A generated secret has few separators and mixed-case parts."""
    parts = [part for part in token.translate(_SEPARATORS).split("-") if part]
    if len(parts) < 3:
        return False
    words = sum(
        part.isalpha() and part.islower() and not _VOWELS.isdisjoint(part) for part in parts
    )
    return 2 * words > len(parts)

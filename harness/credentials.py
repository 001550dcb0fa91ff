"""What a credential looks like: the one set of shapes, for the privacy lint and redaction.

`harness check` flags these shapes in fixtures (`privacy.credential`), and every report scrubs
them out of what a run recorded, so a string that one of them treats as a secret the other does
too. The shapes:

- the value after a secret-looking key: api_key, apikey, access_token, refresh_token, token,
  client_secret, secret, password, passwd, pwd, authorization, auth, private_key, access_key
  (separators `=` or `:`, quotes allowed; at least `MIN_VALUE` characters);
- `Bearer <token>` and `Basic <token>` (at least `MIN_VALUE` characters);
- known token shapes: `sk-…`, `ghp_…`/`gho_…`/`ghu_…`/`ghs_…`/`ghr_…`/`github_pat_…`,
  `AKIA…`/`ASIA…`, `xox…-`, JWTs;
- a PEM private key block (to its END line, or to the end of the text).

At most `KEEP` characters of a credential are ever shown. Only the lint also flags long
random-looking tokens (`random_tokens`): a fixture ships forever and can always use a
placeholder, but a report must keep the ids, hashes and payloads a run produced readable.

The patterns are compiled on first use, not at import, so a run that never meets a trigger
word (`might_hold`) never pays for them.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from typing import NamedTuple

__all__ = [
    "ENTROPY_BITS",
    "KEEP",
    "MARK",
    "MIN_VALUE",
    "Found",
    "Patterns",
    "find",
    "might_hold",
    "patterns",
    "random_tokens",
]

KEEP = 4
"""Characters of a credential that may be shown: the rest is masked."""
MARK = "*[REDACTED]"
"""What redaction puts after the kept characters; a value that holds it is not a secret."""
MIN_VALUE = 8
"""Characters a value after a secret-looking key, or after Bearer/Basic, needs to count."""
ENTROPY_BITS = 4.2
"""Bits per character above which a long token looks random (hex hashes stay below 4.0)."""

# Named token shapes, in the order the lint reports them. Their union is one alternation.
_SHAPES = (
    ("OpenAI-style API key", r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("JWT", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)

# Substrings (lower case) without which no pattern can match: a cheap first screen.
_TRIGGERS = (
    "key", "token", "secret", "pass", "pwd", "auth", "bearer", "basic", "sk-", "ghp_", "gho_",
    "ghu_", "ghs_", "ghr_", "github_pat_", "akia", "asia", "xox", "eyj", "-----begin",
)  # fmt: skip
_SCREEN = re.compile("|".join(map(re.escape, _TRIGGERS)))


class Patterns(NamedTuple):
    """The compiled credential patterns."""

    keyed: re.Pattern[str]
    """Groups: the key, the separator, an optional `Bearer `/`Basic `, the secret value."""
    scheme: re.Pattern[str]
    """Groups: `Bearer` or `Basic`, the whitespace, the secret."""
    shapes: re.Pattern[str]
    """Every named token shape, as one alternation."""
    named: tuple[tuple[str, re.Pattern[str]], ...]
    """Each token shape with what it is called."""
    pem: re.Pattern[str]
    """Group 1: the key's label, such as `RSA PRIVATE KEY`."""
    token: re.Pattern[str]
    """A run of 32 or more token characters, a candidate for `random_tokens`."""


@functools.cache
def patterns() -> Patterns:
    """The credential patterns, compiled on first use."""
    keyed = re.compile(
        rf"""(?ix)
        \b(api[_-]?key|access[_-]?token|refresh[_-]?token|token|client[_-]?secret|secret|
           password|passwd|pwd|authorization|auth|private[_-]?key|access[_-]?key)
        (["']?\s*[:=]\s*["']?)
        ((?:bearer\s+|basic\s+)?)
        ([^\s"'&,;]{{{MIN_VALUE},}})
        """
    )
    scheme = re.compile(rf"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]{{{MIN_VALUE},}})")
    shapes = re.compile("|".join(source for _, source in _SHAPES))
    named = tuple((name, re.compile(source)) for name, source in _SHAPES)
    pem = re.compile(r"-----BEGIN ([A-Z ]*PRIVATE KEY)-----.*?(?:-----END \1-----|\Z)", re.DOTALL)
    token = re.compile(r"[A-Za-z0-9+/_=-]{32,}")
    return Patterns(keyed=keyed, scheme=scheme, shapes=shapes, named=named, pem=pem, token=token)


def might_hold(text: str) -> bool:
    """Whether `text` holds a trigger word; when it does not, no pattern can match it."""
    return _SCREEN.search(text.lower()) is not None


class Found(NamedTuple):
    """One credential found in a text."""

    kind: str
    """What it looks like, e.g. `GitHub token`."""
    secret: str
    """The secret itself (for a PEM block, its BEGIN line): mask it before showing it."""


def find(text: str) -> list[Found]:
    """Every credential in `text`: each token shape in turn, then PEM blocks, then key values.

    A match that overlaps one found before it is the same secret seen twice (`api_key=sk-…`
    is one OpenAI key) and is left out.
    """
    if not might_hold(text):
        return []
    compiled = patterns()
    found: list[Found] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, match: re.Match[str], secret: str) -> None:
        start, end = match.span()
        if not any(start < other_end and other_start < end for other_start, other_end in taken):
            taken.append((start, end))
            found.append(Found(kind=kind, secret=secret))

    for name, pattern in compiled.named:
        for match in pattern.finditer(text):
            add(name, match, match[0])
    for match in compiled.pem.finditer(text):
        begin = f"-----BEGIN {match[1]}-----"
        if match[0] != begin + MARK:  # a block that redaction already cut is no secret
            add("PEM private key", match, begin)
    for match in compiled.keyed.finditer(text):
        if MARK not in match[4]:
            add(f"secret after {match[1]}", match, match[4])
    for match in compiled.scheme.finditer(text):
        if MARK not in match[3]:
            add(f"{match[1]} credential", match, match[3])
    return found


def random_tokens(text: str) -> list[str]:
    """The tokens of 32 or more characters in `text` that look random (see `ENTROPY_BITS`)."""
    return [match[0] for match in patterns().token.finditer(text) if _looks_random(match[0])]


def _looks_random(token: str) -> bool:
    has_digit = any(c.isdigit() for c in token)
    has_letter = any(c.isalpha() for c in token)
    if not (has_digit and has_letter):
        return False
    counts = Counter(token)
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= ENTROPY_BITS

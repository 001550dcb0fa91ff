"""What every output masks: the one place that decides, for reports, artifacts and stderr.

Two things are masked wherever they appear, as CI systems mask their secrets:

- the values of the secrets the harness itself holds: each secret-named variable of its own
  environment (`OPENAI_API_KEY`, `NPM_TOKEN`, `DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`: a name
  `harness.credentials` calls secret-looking, not a bare everyday word such as `PWD` or
  `TOKEN`) whose value has at least `MIN_VALUE` characters and stands in for nothing, and
  any value `hold` was given (the upstream key `harness record` forwards). Each is masked as
  it is, JSON-escaped and URL-encoded;
- every credential shape `harness.credentials` knows.

A credential keeps its first `KEEP` characters, followed by `MARK` (`api_key=abcd1234` ->
`api_key=abcd*[REDACTED]`; one shorter than twice `KEEP` keeps none), a cookie header shows no
value, and a PEM or PGP private key block is cut whole, after its BEGIN line.
"""

from __future__ import annotations

import functools
import json
import os
import re

from harness.credentials import (
    MARK,
    MIN_VALUE,
    element_secret,
    is_cut,
    keep,
    keep_cookie,
    keyed_secret,
    might_hold,
    patterns,
    secret_key,
    stands_in,
)
from harness.tokens import shapes, shapes_in

__all__ = ["held", "hold", "needs_masking", "redact", "without_held"]

# Names that look secret only when they stand alone, or that the shell sets (`OLDPWD`).
_EVERYDAY = frozenset({"token", "auth", "pwd", "oldpwd", "pass", "sig", "signature"})
_held: set[str] = set()
"""Values given to `hold`, with their escaped forms."""


def _forms(value: str) -> set[str]:
    """`value` as it is, JSON-escaped and URL-encoded: each way an output may spell it."""
    import urllib.parse  # only a held secret needs it, not every run's start

    return {value, json.dumps(value, ensure_ascii=False)[1:-1], urllib.parse.quote(value, safe="")}


def _meaningful(value: str) -> bool:
    return len(value.strip()) >= MIN_VALUE and not stands_in(value)


@functools.cache
def _environment() -> frozenset[str]:
    """The values of the secret-named variables of this process's environment (read once)."""
    values: set[str] = set()
    for name, value in os.environ.items():
        if name.lower() not in _EVERYDAY and secret_key(name) and _meaningful(value):
            values |= _forms(value)
    return frozenset(values)


def hold(value: str) -> None:
    """Mask `value` from now on in every output of this process (and of workers it starts)."""
    if _meaningful(value):
        _held.update(_forms(value))
        held.cache_clear()


@functools.cache
def held() -> tuple[str, ...]:
    """Every value masked whatever it looks like, longest first (so none is masked in part)."""
    return tuple(sorted(_environment() | _held, key=len, reverse=True))


def needs_masking(text: str) -> bool:
    """Whether `redact` could change `text`: a trigger word, or a held value, is in it."""
    return might_hold(text) or any(value in text for value in held())


def without_held(text: str) -> str:
    """`text` with every held value cut to its first characters and a mark."""
    for value in held():
        if value in text:
            text = text.replace(value, keep(value))
    return text


def redact(text: str) -> str:
    """`text` with every held value and every credential cut to its first characters and a
    mark."""
    text = without_held(text)
    if not might_hold(text):
        return text  # the common case: nothing that could be a credential
    compiled = patterns()
    text = compiled.pem.sub(lambda m: f"-----BEGIN {m[1]}-----{MARK}", text)
    if found := shapes_in(text):
        text = shapes(found).sub(lambda m: keep(m[0]), text)
    text = compiled.header.sub(
        lambda m: m[0] if is_cut(m["value"]) or stands_in(m["value"]) else _cut(m), text
    )
    text = compiled.cookie.sub(
        lambda m: m[0] if MARK in m["value"] else f"{m['key']}{m['sep']}{keep_cookie(m['value'])}",
        text,
    )
    text = compiled.url.sub(lambda m: f"{m[1]}{keep(m[2])}" if MARK not in m[2] else m[0], text)
    text = compiled.keyed.sub(lambda m: _cut(m) if keyed_secret(m) else m[0], text)
    for pattern in (compiled.element, compiled.pair, compiled.spaced):
        text = pattern.sub(lambda m: _cut_element(m) if element_secret(m) else m[0], text)
    return compiled.scheme.sub(
        lambda m: f"{m[1]}{m[2]}{keep(m[3])}" if MARK not in m[3] else m[0], text
    )


def _cut(match: re.Match[str]) -> str:
    """A keyed or header match with its value cut: `key`, `sep`, `scheme` kept as they were."""
    return f"{match['key']}{match['sep']}{match['scheme']}{keep(match['value'])}"


def _cut_element(match: re.Match[str]) -> str:
    """An element's start tag (a pair's or a flag's name) kept, its value cut."""
    start = match.start()
    return f"{match[0][: match.start('value') - start]}{keep(match['value'])}"

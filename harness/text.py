"""Showing observed text safely: JSON-quoted and bounded, or escaped for a terminal."""

from __future__ import annotations

import sys
from json.encoder import encode_basestring

__all__ = ["QUOTE_LIMIT", "complain", "printable", "quote", "quote_list"]

# The C encoder of a JSON string with non-ASCII kept, what `json.dumps(text,
# ensure_ascii=False)` calls, without the Python-level dispatch around it.
_encode = encode_basestring
QUOTE_LIMIT = 2000
"""Characters of an observed text quoted before it is cut with a marker."""


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """JSON-quote `text`, cutting it after `limit` characters with a visible marker."""
    if len(text) > limit:
        text = f"{text[:limit]}…[{len(text) - limit} more chars]"
    return _encode(text)


def quote_list(items: list[str] | tuple[str, ...]) -> str:
    """`["a", "b"]`: each item JSON-quoted."""
    return "[" + ", ".join(quote(item) for item in items) + "]"


def _escapes() -> dict[int, str]:
    table = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))}
    table.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
    # Bidirectional overrides can reorder what a terminal shows, e.g. forge a ✓.
    bidi = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
    # Lone surrogates cannot be written to a UTF-8 terminal at all.
    table.update({code: f"\\u{code:04x}" for code in (*bidi, *range(0xD800, 0xE000))})
    return table


_ESCAPES = _escapes()


def printable(text: str) -> str:
    """`text` with control characters escaped, so it cannot repaint the terminal."""
    return text.translate(_ESCAPES)


def complain(message: str) -> None:
    """Print each line of `message` to stderr as `harness: <line>`."""
    for line in message.splitlines() or [message]:
        print(f"harness: {line}", file=sys.stderr)

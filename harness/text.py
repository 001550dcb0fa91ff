"""Showing observed text safely: bounded, quoted, and escaped for where it is shown.

Everything a case observed (responses, tool results, names, details) is untrusted text. This
module holds every way of making it safe to show, so each rule is written once:

- `truncate`: cut after a limit with the one visible marker, `…[truncated N chars]`;
- `quote` / `quote_list`: JSON-quoted and bounded, as grade labels and details show text;
- `printable`: control characters escaped for a terminal;
- `markdown`: one line that cannot break a Markdown table row or an inline code span;
- `xml_safe`: legal XML 1.0, ANSI sequences removed whole, other illegal characters escaped;
- `without_surrogates`: lone surrogates written as escapes, so the text encodes as UTF-8;
- `complain`: a message on stderr.
"""

from __future__ import annotations

import functools
import re
import sys
from json.encoder import encode_basestring

__all__ = [
    "QUOTE_LIMIT",
    "complain",
    "markdown",
    "printable",
    "quote",
    "quote_list",
    "truncate",
    "without_surrogates",
    "xml_safe",
]

# The C encoder of a JSON string with non-ASCII kept, what `json.dumps(text,
# ensure_ascii=False)` calls, without the Python-level dispatch around it.
_encode = encode_basestring
QUOTE_LIMIT = 2000
"""Characters of an observed text quoted before it is cut with a marker."""


def truncate(text: str, limit: int | None) -> str:
    """`text` cut after `limit` characters, with a marker saying how many were cut.

    Args:
        text: Any string.
        limit: Characters kept; `None` keeps them all.
    """
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}…[truncated {len(text) - limit} chars]"


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """JSON-quote `text`, cutting it after `limit` characters with a visible marker."""
    return _encode(truncate(text, limit))


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


def markdown(text: str, limit: int | None = None) -> str:
    """`text` as one line that cannot break a Markdown table row or an inline code span.

    Whitespace runs (newlines included) become one space, the result is cut after `limit`
    characters with the marker, then `|` is escaped and a backtick becomes `'`.
    """
    text = truncate(" ".join(text.split()), limit)
    return text.replace("|", "\\|").replace("`", "'")


@functools.cache
def _xml_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """ANSI sequences, and what XML 1.0 forbids: compiled on first use, not at start-up."""
    ansi = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
    illegal = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
    return ansi, illegal


def xml_safe(text: str, limit: int | None = None) -> str:
    """`text` made safe for XML 1.0: ANSI sequences removed, illegal characters escaped.

    An ANSI sequence is removed whole, since dropping only its ESC would leave residue such as
    `[31m`; every other character XML 1.0 forbids (controls, lone surrogates) is shown as a
    `\\xNN` or `\\uNNNN` escape.

    Args:
        text: Any string, possibly with control characters or lone surrogates.
        limit: Cut the result after this many characters, with the marker.
    """
    ansi, illegal = _xml_patterns()
    return truncate(illegal.sub(_escape, ansi.sub("", text)), limit)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def without_surrogates(value: object) -> object:
    """A JSON-like value with each lone surrogate in its strings written as a `\\udXXX` escape.

    A lone surrogate (which a custom tool or agent may produce) cannot be encoded as UTF-8.
    Strings are rewritten in lists, tuples (which become lists) and dict values; other values
    are returned as they are.
    """
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list | tuple):
        return [without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {key: without_surrogates(item) for key, item in value.items()}
    return value


def complain(message: str) -> None:
    """Print each line of `message` to stderr as `harness: <line>`."""
    for line in message.splitlines() or [message]:
        print(f"harness: {line}", file=sys.stderr)

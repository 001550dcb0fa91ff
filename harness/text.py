"""Showing observed text safely: bounded, quoted, and escaped for where it is shown.

Everything a case observed (responses, tool results, names, details) is untrusted text. This
module holds every way of making it safe to show, so each rule is written once:

- `truncate`: cut after a limit with the one visible marker, `…[truncated N chars]`;
- `cut_middle`: the same marker in the middle, so the start and the end both stay;
- `one_line`: the first line only, bounded, with how many lines were left out;
- `quote` / `quote_list`: JSON-quoted and bounded, as grade labels and details show text;
- `printable`: control characters escaped for a terminal;
- `without_ansi`: ANSI escape sequences removed whole, with no `[31m` residue;
- `plain`: ANSI removed, then control characters (newline and tab aside), bidirectional
  overrides and lone surrogates escaped: the base of every artifact's cleaning below;
- `markdown`: one line that cannot break a Markdown table row, with HTML escaped;
- `xml_safe`: legal XML 1.0, ANSI sequences removed whole, other illegal characters escaped;
- `without_attachments`: `[[ATTACHMENT|` (and `[[PROPERTY|`) markers that Jenkins and GitLab
  read from a testcase's output, broken up;
- `workflow_data` / `workflow_property`: text for a GitHub workflow command (`::error`), with
  any `::` broken up so it can never start a command of its own;
- `without_surrogates`: lone surrogates written as escapes, so the text encodes as UTF-8;
- `complain`: a message on stderr, redacted (`harness.masking`) and escaped.
"""

from __future__ import annotations

import functools
import re
import sys
from json.encoder import encode_basestring

from harness.masking import redact

__all__ = [
    "QUOTE_LIMIT",
    "complain",
    "cut_middle",
    "markdown",
    "one_line",
    "plain",
    "printable",
    "quote",
    "quote_list",
    "truncate",
    "without_ansi",
    "without_attachments",
    "without_surrogates",
    "workflow_data",
    "workflow_property",
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


def cut_middle(text: str, limit: int | None) -> str:
    """`text` with its middle cut out past `limit` characters, the marker in its place.

    The first and last halves of the budget stay, so what came last (a final response, the
    end of a log) survives the cut.
    """
    if limit is None or len(text) <= limit:
        return text
    head = (limit + 1) // 2
    tail = limit - head
    return f"{text[:head]}…[truncated {len(text) - limit} chars]…{text[len(text) - tail :]}"


def one_line(text: str, limit: int | None = None) -> str:
    """The first line of `text`, cut after `limit` characters, saying how many lines follow."""
    first, newline, rest = text.partition("\n")
    first = truncate(first.rstrip("\r"), limit)
    if newline:
        more = rest.count("\n") + 1
        first += f" …[+{more} more line{'s' if more > 1 else ''}]"
    return first


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
# `plain` keeps the line structure: newline and tab are shown as they are.
_PLAIN_ESCAPES = {code: escape for code, escape in _ESCAPES.items() if code not in (9, 10)}
_MARKDOWN = str.maketrans({"|": "\\|", "`": "'", "&": "&amp;", "<": "&lt;", ">": "&gt;"})


def printable(text: str) -> str:
    """`text` with control characters escaped, so it cannot repaint the terminal."""
    return text.translate(_ESCAPES)


def without_ansi(text: str) -> str:
    """`text` with ANSI escape sequences (colors, cursor moves, titles) removed whole."""
    if "\x1b" not in text:
        return text
    return _xml_patterns()[0].sub("", text)


def plain(text: str) -> str:
    """`text` without ANSI sequences, its other controls, bidi overrides and surrogates escaped.

    Newlines and tabs stay, so a multi-line text keeps its lines; everything else that could
    repaint a terminal, reorder what is shown, or fail to encode as UTF-8 is made visible.
    """
    return without_ansi(text).translate(_PLAIN_ESCAPES)


def markdown(text: str, limit: int | None = None) -> str:
    """`text` as one line that cannot break a Markdown table row or inject HTML.

    ANSI sequences are removed and other controls escaped (`plain`), whitespace runs
    (newlines included) become one space, the result is cut after `limit` characters with the
    marker, then `|` is escaped, a backtick becomes `'` and `&`, `<`, `>` become entities.
    """
    text = truncate(" ".join(plain(text).split()), limit)
    return text.translate(_MARKDOWN)


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
    if illegal.search(text) is None:  # the common case, ESC included: one scan in C
        return truncate(text, limit)
    return truncate(illegal.sub(_escape, ansi.sub("", text)), limit)


@functools.cache
def _attachment_marker() -> re.Pattern[str]:
    return re.compile(r"\[\[(?=(?:ATTACHMENT|PROPERTY)\|)", re.IGNORECASE)


def without_attachments(text: str) -> str:
    """`text` with every `[[ATTACHMENT|` and `[[PROPERTY|` marker broken up as `[ [`.

    Jenkins (junit-attachments) and GitLab read such lines in a testcase's output as files to
    attach; observed text must never name a file on the CI machine that way.
    """
    if "[[" not in text:
        return text
    return _attachment_marker().sub("[ [", text)


def workflow_data(text: str) -> str:
    """`text` as the message of a GitHub workflow command (`::error ...::MESSAGE`).

    The text is cleaned (`plain`), any `::` is broken up as `: :` so no part of it can be
    read as a command of its own (`::stop-commands::`, `::add-mask::`), and `%`, CR and LF
    are percent-encoded as the runner expects, which keeps the command on one line.
    """
    text = plain(text)
    while "::" in text:
        text = text.replace("::", ": :")
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """`text` as a workflow command's property value (`file=`, `title=`): also `:` and `,`."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


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
    """Print each line of `message` to stderr as `harness: <line>`: redacted, then with its
    control characters escaped (`printable`), since it may quote a fixture, an agent or an
    upstream."""
    for line in redact(message).splitlines() or [message]:
        print(f"harness: {printable(line)}", file=sys.stderr)

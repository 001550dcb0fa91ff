"""Turning msgspec's decode errors into a fixture location and a reason a person can act on.

msgspec reports `Object contains unknown field `respnse` - at `$.expects``; the harness
reports `$.expects.respnse: unknown key (did you mean "response_contains"?)`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

__all__ = ["describe_decode_error", "describe_validation", "text_position"]

_AT = re.compile(r"^(?P<message>.*?)(?: - at `(?P<path>[^`]*)`)?$", re.DOTALL)
_BYTE = re.compile(r"^(?P<message>.*?) \(byte (?P<offset>\d+)\)$")
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<key>.*)`$")
_MISSING = re.compile(r"^Object missing required field `(?P<key>.*)`$")
_EXPECTED = re.compile(r"^Expected `(?P<want>[^`]+)`(?P<rest>.*)$")
_TYPE_NAMES = {
    "str": "a string",
    "int": "an integer",
    "bool": "true or false",
    "object": "an object",
    "array": "an array",
    "null": "null",
    "float": "a number",
}
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

KNOWN_KEYS = (
    "model_name", "turns", "expects", "user_input", "steps", "response", "type", "content",
    "tool_calls", "id", "name", "arguments", "input_tokens", "output_tokens",
    "response_contains", "response_not_contains", "tools_used", "tools_not_used",
    "max_tool_calls", "min_tool_calls", "exact_tool_calls", "tool_arguments_contain",
    "tool_results_contain", "all_tools_succeeded", "response_matches", "tool", "needle",
    "call_index", "kind", "$schema", "requests", "tools_offered", "system_prompt_contains",
    "params",
)  # fmt: skip


_TOO_SHORT = frozenset({"Expected `str` of length >= 1", "Expected `array` of length >= 1"})
_ENTRY = re.compile(r"^\$\.expects\.(?P<family>[a-z_.]+)\[\d+\]$")
# What an empty value means where the fixture format forbids one, by the key it sits under.
_EMPTY_REASONS = {
    "turns": "no turns: replay would drive the agent zero times",
    "steps": "the turn scripts no steps",
    "tool_calls": "a tool_calls step scripts no call",
    "id": "empty call id",
    "name": "empty call name",
    "tool": "empty tool asserts nothing",
    "needle": "empty needle asserts nothing",
}


def describe_decode_error(exc: msgspec.MsgspecError, data: bytes) -> tuple[str, str]:
    """The location and reason for a fixture msgspec could not decode."""
    message = str(exc)
    if isinstance(exc, msgspec.ValidationError):
        path, text = _split(message)
        if text in _TOO_SHORT:  # a non-empty string or array of the format, left empty
            return path, _empty_reason(path)
        return describe_validation(message)
    if "UTF-8" in message:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            culprit = f"0x{data[bad.start]:02x}"
            return text_position(data, bad.start), f"is not valid UTF-8 (byte {culprit})"
    at_byte = _BYTE.match(message)
    if at_byte:
        offset = int(at_byte["offset"])
        reason = at_byte["message"].removeprefix("JSON is malformed: ")
    else:
        offset = len(data)
        reason = "unexpected end of file" if "truncated" in message else message
    return text_position(data, offset), f"invalid JSON: {reason}"


def _empty_reason(path: str) -> str:
    if entry := _ENTRY.match(path):
        return f'declares a zero-length entry in "{entry["family"]}"'
    key = path.rsplit(".", 1)[-1]
    return _EMPTY_REASONS.get(key, "must not be empty")


def text_position(data: bytes, offset: int) -> str:
    """`line L, column C` (both 1-based, columns in characters) of a byte offset."""
    head = data[:offset]
    line_start = head.rfind(b"\n") + 1
    column = len(head[line_start:].decode("utf-8", "replace")) + 1
    line = head.count(b"\n") + 1
    return f"line {line}, column {column}"


def describe_validation(message: str, known_keys: Sequence[str] = KNOWN_KEYS) -> tuple[str, str]:
    """The JSON path and reason of a msgspec validation error, e.g. an unknown key.

    Args:
        message: msgspec's message (`... - at `$.path``).
        known_keys: The keys to suggest from when a key is unknown.
    """
    path, text = _split(message)
    if match := _UNKNOWN.match(text):
        import difflib  # only a rejected input needs suggestions

        key = match["key"]
        hint = difflib.get_close_matches(key, known_keys, n=1)
        suggestion = f' (did you mean "{hint[0]}"?)' if hint else ""
        return _child(path, key), f"unknown key{suggestion}"
    if match := _MISSING.match(text):
        return _child(path, match["key"]), "required key is missing"
    if text.startswith("Invalid value") and path.endswith(".type"):
        got = text.removeprefix("Invalid value ").strip("'")
        return path, f'unknown response type "{got}" (expected "text" or "tool_calls")'
    if text.startswith("Invalid enum value") and path == "$.kind":
        got = text.removeprefix("Invalid enum value ").strip("'")
        return path, f'unknown kind "{got}" (expected "positive" or "negative")'
    if match := _EXPECTED.match(text):
        return path, _expected(match["want"], match["rest"])
    return path, text.replace("`", "")


def _split(message: str) -> tuple[str, str]:
    """msgspec's `... - at `$.path`` as the JSON path (`$` when none) and the message."""
    parts = _AT.match(message)
    assert parts is not None  # the pattern matches any string
    return parts["path"] or "$", parts["message"]


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if _KEY.match(key) else f'{path}["{key}"]'


def _expected(want: str, rest: str) -> str:
    if rest.strip() == ">= 0":
        return "expected an integer >= 0"
    got = rest.removeprefix(", got ").strip("`")
    name = " or ".join(_TYPE_NAMES.get(part, part) for part in want.split(" | "))
    return f"expected {name}, got {_TYPE_NAMES.get(got, got)}" if got else f"expected {name}"

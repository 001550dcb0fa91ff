"""Fail-closed loading of one fixture: bounded reading, decoding, admission.

A fixture is admitted only when it can fail: besides the wire format (unknown keys refused at
every level, a reply union tagged on `type`), `load_case` rejects traces that would replay
nothing and expectations that assert nothing. Every rejection is a `FixtureError` naming the
file, the JSON path and the reason.
"""

from __future__ import annotations

import codecs
import os
import stat
from typing import Any

import msgspec

from harness.case import (
    Case,
    Expects,
    LlmTrace,
    ToolCallsReply,
    Turn,
)
from harness.errors import FixtureError
from harness.limits import DEFAULT_LIMITS, Limits
from harness.pattern import pattern_error

__all__ = ["decode_trace", "load_case", "read_fixture"]

_decoder = msgspec.json.Decoder(LlmTrace)
Problem = tuple[str, str] | None
"""Where a fixture breaks an admission rule (a JSON path) and why, or None."""
# Non-blocking, so that opening a FIFO named like a fixture cannot hang the run.
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def load_case(path: str, limits: Limits = DEFAULT_LIMITS) -> Case:
    """Read, decode and validate one fixture file.

    Raises:
        FixtureError: The file cannot be read, is not a valid trace, or could not fail.
    """
    data = read_fixture(path, limits.max_fixture_bytes)
    return Case(source=path, trace=decode_trace(path, data, limits.max_nesting))


def read_fixture(path: str, max_bytes: int = DEFAULT_LIMITS.max_fixture_bytes) -> bytes:
    """The bytes of a fixture file, read with a bound.

    Only a regular file is read: a folder, FIFO, socket or device is refused without blocking
    on it, and so is a file larger than `max_bytes`.

    Raises:
        FixtureError: The file cannot be read, is not a regular file, or is too large.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise FixtureError(path, None, _unreadable(path, exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise FixtureError(path, None, f"is {kind}, not a fixture file")
        if info.st_size > max_bytes:
            raise FixtureError(path, None, _too_large(info.st_size, max_bytes))
        data = os.read(fd, info.st_size + 1)
        if len(data) > info.st_size:  # the file grew while it was read: read on, bounded
            data = _read_on(fd, data, max_bytes)
    except OSError as exc:
        raise FixtureError(path, None, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise FixtureError(path, None, _too_large(len(data), max_bytes))
    return data


def _read_on(fd: int, head: bytes, max_bytes: int) -> bytes:
    """`head` and the rest of the file, up to end of file or one byte past `max_bytes`."""
    chunks, size = [head], len(head)
    while chunks[-1] and size <= max_bytes:
        chunks.append(os.read(fd, max_bytes + 1 - size))
        size += len(chunks[-1])
    return b"".join(chunks)


def _unreadable(path: str, exc: OSError) -> str:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "is not a regular file, not a fixture file"  # a socket, say: no open()
    except OSError:
        pass
    return f"cannot read: {exc.strerror or exc}"


def _too_large(size: int, limit: int) -> str:
    return f"is {size} bytes, over the {limit}-byte limit (max_fixture_bytes)"


def decode_trace(path: str, data: bytes, max_nesting: int = DEFAULT_LIMITS.max_nesting) -> LlmTrace:
    """Decode and validate fixture bytes; `path` only names the culprit in errors.

    Raises:
        FixtureError: The bytes are not a valid trace, or the trace could not fail.
    """
    if data.startswith(codecs.BOM_UTF8):
        reason = "starts with a byte order mark (BOM): save it as UTF-8 without a BOM"
        raise FixtureError(path, "line 1, column 1", reason)
    try:
        trace = _decoder.decode(data)
    except msgspec.MsgspecError as exc:
        from harness.diagnosis import describe_decode_error  # only a rejected fixture pays

        location, reason = describe_decode_error(exc, data)
        raise FixtureError(path, location, reason) from None
    except RecursionError:
        limit = f"the limit is {max_nesting} levels, max_nesting"
        reason = f"nests deeper than the decoder follows ({limit})"
        raise FixtureError(path, None, reason) from None
    problem = _problem(trace, max_nesting)
    if problem is not None:
        raise FixtureError(path, *problem)
    return trace


def _problem(trace: LlmTrace, max_nesting: int) -> Problem:
    """The first reason, in document order, why the trace is not admitted; None admits it.

    Empty strings and arrays that the format forbids were refused while decoding (their
    `min_length` is part of the types); what is left needs a look at the decoded trace.
    """
    if not trace.model_name.strip():
        return "$.model_name", "empty case name"
    problem = _nesting_problem(trace.turns, max_nesting)
    if problem is not None:
        return problem
    expects = trace.expects
    if expects is None:
        return "$", 'missing "expects": declares no effective expectation'
    for i, source in enumerate(expects.response_matches):
        error = pattern_error(source)
        if error is not None:
            return f"$.expects.response_matches[{i}]", f"invalid RE2 regex: {error}"
    checks = expects.requests
    if checks is not None and not (
        checks.tools_offered or checks.system_prompt_contains or checks.params
    ):
        return "$.expects.requests", "declares no request check"
    if expects.is_empty():
        return "$.expects", "declares no effective expectation"
    return _bound_problem(expects)


def _nesting_problem(turns: tuple[Turn, ...], max_nesting: int) -> Problem:
    """The first scripted call whose arguments nest deeper than `max_nesting`."""
    for t, turn in enumerate(turns):
        for s, step in enumerate(turn.steps):
            reply = step.response
            if not isinstance(reply, ToolCallsReply):
                continue
            for c, call in enumerate(reply.tool_calls):
                if _nested(call.arguments) and _depth(call.arguments) > max_nesting:
                    return (
                        f"$.turns[{t}].steps[{s}].response.tool_calls[{c}].arguments",
                        f"nests deeper than {max_nesting} levels (max_nesting)",
                    )
    return None


def _nested(value: Any) -> bool:
    """Whether `value` holds an array or object inside an array or object (depth > 1).

    Most arguments are one flat object: this spares walking them.
    """
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return False
    return any(isinstance(child, _CONTAINERS) for child in value)


_CONTAINERS = (dict, list)  # a tuple: isinstance checks it faster than `dict | list`


def _depth(value: Any) -> int:
    """How deep arrays and objects nest in a JSON value (iterative: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


def _bound_problem(expects: Expects) -> Problem:
    low, high, exact = expects.min_tool_calls, expects.max_tool_calls, expects.exact_tool_calls
    if low == 0:
        return (
            "$.expects.min_tool_calls",
            "min_tool_calls: 0 is vacuous: every run makes >= 0 calls",
        )
    if low is not None and high is not None and low > high:
        return (
            "$.expects.min_tool_calls",
            f"min_tool_calls ({low}) exceeds max_tool_calls ({high}): no run can pass",
        )
    if exact is not None and (
        (low is not None and exact < low) or (high is not None and exact > high)
    ):
        window = f"[{'-' if low is None else low}, {'-' if high is None else high}]"
        bounds = "[min_tool_calls, max_tool_calls]"
        return (
            "$.expects.exact_tool_calls",
            f"exact_tool_calls ({exact}) lies outside {bounds} = {window}",
        )
    return None

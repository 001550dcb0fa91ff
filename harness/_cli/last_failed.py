"""The last-failed cache: which cases failed or errored in each suite's latest run.

`harness run --last-failed` reruns them. The cache is one small JSON file beside the run
history (`last-failed.json` in the history's folder), written atomically after every run
and only when it changes. Each run updates its suite's entry: the cases it ran drop out,
then the ones that failed or errored go back in, so a selected run keeps the failures it
did not rerun. The most recently run suites are kept, up to `MAX_SUITES`.
"""

from __future__ import annotations

import os

import msgspec

from harness.errors import ArtifactError, UnreadableFile
from harness.files import read_regular
from harness.reports.artifact import write_atomic
from harness.reports.model import SuiteReport
from harness.text import complain

__all__ = ["CACHE_NAME", "MAX_SUITES", "cache_path", "last_failed", "remember"]

CACHE_NAME = "last-failed.json"
MAX_SUITES = 64
"""Suites the cache remembers; the least recently run are forgotten first."""


class _Cache(msgspec.Struct, frozen=True):
    suites: dict[str, list[str]] = {}
    """Per suite folder (its real path), the names of the cases that did not pass."""


def cache_path(history: str) -> str:
    """The cache file beside the history file `history`."""
    return os.path.join(os.path.dirname(history) or ".", CACHE_NAME)


def _key(directory: str) -> str:
    return os.path.realpath(directory)


_MAX_BYTES = 16 * 1024 * 1024
"""A cache larger than this is not one the harness wrote: it is read as none."""

_warned: set[str] = set()
"""Caches already said to be no regular file: one warning a path, not one per use."""


def _read(path: str) -> tuple[_Cache, bytes] | None:
    """The cache and its bytes; None when `path` is not a regular file (a FIFO, a device,
    a folder), which is skipped with a warning, never waited on, never replaced."""
    try:
        raw = read_regular(path, _MAX_BYTES, kind="cache file", limit="the cache's limit")
        return msgspec.json.decode(raw, type=_Cache), raw
    except UnreadableFile as exc:
        if os.path.lexists(path) and not os.path.isfile(path):
            if path not in _warned:
                _warned.add(path)
                complain(f"{path}: the last-failed cache {exc.reason}: skipped")
            return None
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        pass
    return _Cache(), b""  # no cache yet, or an unreadable one: as if no run was recorded


def last_failed(path: str, directory: str) -> frozenset[str] | None:
    """The cases of the suite at `directory` that did not pass last time; None: no run known."""
    read = _read(path)
    names = None if read is None else read[0].suites.get(_key(directory))
    return None if names is None else frozenset(names)


def remember(path: str, report: SuiteReport) -> None:
    """Record which cases of `report` did not pass; a cache that cannot be written is said."""
    read = _read(path)
    if read is None:
        return
    cache, raw = read
    key = _key(report.directory)
    before = cache.suites.get(key, [])
    known = frozenset(before)  # of the cases run, only these are looked for: no set of all
    ran = {case.name for case in report.cases if case.name in known}
    kept = [name for name in before if name not in ran]
    failed = sorted({*kept, *(case.name for case in report.cases if case.failing)})
    suites = {name: cases for name, cases in cache.suites.items() if name != key}
    suites[key] = failed  # last: the most recently run
    while len(suites) > MAX_SUITES:
        del suites[next(iter(suites))]
    data = msgspec.json.encode(_Cache(suites=suites)) + b"\n"
    if data == raw:
        return
    try:
        write_atomic(path, data)
    except ArtifactError as exc:
        complain(f"cannot update the last-failed cache: {exc}")

"""Why a history operation failed, in words: the cause behind SQLite's message."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from collections.abc import Sequence
from typing import Any

import msgspec

from harness.errors import HistoryError

__all__ = ["DAMAGE", "cause", "check_is_file", "wrong_type"]


def wrong_type(
    table: str,
    columns: Sequence[str],
    number: int,
    row: tuple[Any, ...],
    exc: msgspec.ValidationError,
) -> str:
    """`table 'runs', the row of run_id '…', column passed: Expected `int`, got `str``."""
    match = re.search(r"- at `\$\[(\d+)\]", str(exc))
    reason = str(exc).split(" - at ", 1)[0]
    column = int(match[1]) if match else -1
    run_id = row[0] if len(columns) > 1 and row and isinstance(row[0], str) else None
    where = f"the row of run_id {run_id!r}" if run_id is not None else f"row {number}"
    if run_id is not None and table == "case_results" and len(row) > 1:
        where += f" and name {row[1]!r}"
    named = f", column {columns[column]}" if 0 <= column < len(columns) else ""
    return f"table {table!r}, {where}{named}: a value of the wrong type: {reason}"


def check_is_file(path: str) -> None:
    """Refuse a history path that exists but is not a regular file (`/dev/null`, a folder)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return  # a new history
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a device, FIFO or socket)"
        raise HistoryError(path, f"cannot open the history: it is {kind}")


DAMAGE = (sqlite3.Error, UnicodeDecodeError)
"""What SQLite raises for a history it cannot use: its own errors, and, for a file with
flipped bits, text (a schema, an error message) that is not UTF-8."""


def cause(exc: sqlite3.Error | UnicodeDecodeError, path: str) -> str:
    """What went wrong, in words: SQLite's message, and for a failed write its likely cause.

    SQLite reports a full disk and a file over the size limit as an I/O error or a full
    database; the disk's free space and the process's limit tell them apart.
    """
    if isinstance(exc, UnicodeDecodeError):
        return "the file is damaged (SQLite read text that is not UTF-8)"
    name = getattr(exc, "sqlite_errorname", "")
    if name != "SQLITE_FULL" and not name.startswith("SQLITE_IOERR"):
        return str(exc)
    return f"{exc} ({name}): {_write_failure(path)}"


def _write_failure(path: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        disk = os.statvfs(folder)
        if disk.f_bavail * disk.f_frsize < 1024 * 1024:
            return f"the disk is full (no space left in {folder})"
    except OSError:
        pass
    try:
        import resource  # deferred: POSIX only

        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        if limit != resource.RLIM_INFINITY:
            return f"the history reached the file-size limit (ulimit -f) of {limit} bytes"
    except (ImportError, OSError, ValueError):
        pass
    return "the disk is full or failing, or a file-size limit was reached"

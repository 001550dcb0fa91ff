"""Reading a file the harness was pointed at: bounded, regular files only, never blocking.

Fixtures, shard reports and history imports are all named by users, and any of them can be a
FIFO that never ends, `/dev/zero`, a folder or a file far too large. Each is opened without
blocking and checked before a byte is read; a file that grows while it is read is read on only
up to one byte past the limit.
"""

from __future__ import annotations

import os
import stat

from harness.errors import UnreadableFile

__all__ = ["read_regular"]

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def read_regular(path: str, max_bytes: int, *, kind: str, limit: str) -> bytes:
    """The bytes of the regular file at `path`, at most `max_bytes` of them.

    `kind` names what the file should be ("fixture file", "report file") and `limit` the
    limit ("the 1048576-byte limit (max_fixture_bytes)") in the reasons.

    Raises:
        UnreadableFile: It cannot be read, is not a regular file, or is too large.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise UnreadableFile(path, _unreadable(path, exc, kind)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise UnreadableFile(path, f"is {what}, not a {kind}")
        if info.st_size > max_bytes:
            raise UnreadableFile(path, _too_large(info.st_size, limit))
        data = os.read(fd, info.st_size + 1)
        if len(data) > info.st_size:  # the file grew while it was read: read on, bounded
            chunks, size = [data], len(data)
            while chunks[-1] and size <= max_bytes:
                chunks.append(os.read(fd, max_bytes + 1 - size))
                size += len(chunks[-1])
            data = b"".join(chunks)
    except OSError as exc:
        raise UnreadableFile(path, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise UnreadableFile(path, _too_large(len(data), limit))
    return data


def _unreadable(path: str, exc: OSError, kind: str) -> str:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return f"is not a regular file, not a {kind}"  # a socket, say: no open()
    except OSError:
        pass
    return f"cannot read: {exc.strerror or exc}"


def _too_large(size: int, limit: str) -> str:
    return f"is {size} bytes, over {limit}"

"""Report files: written atomically (a reader sees the old file or the new one, never half),
and read back with a bound (only a regular file, never blocking, never without end).

A signal that stops the process mid-write (SIGTERM, SIGINT) removes the temp file in the
signal handler itself, before the process stops: whatever the signal then does (raise, or end
the process the default way), no `.tmp` file is left beside the artifact.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import Any

from harness.errors import ArtifactError, HarnessError, UnreadableFile, UsageError
from harness.files import read_regular

__all__ = ["MAX_ARTIFACT_BYTES", "check_output", "read_artifact", "write_atomic"]

MAX_ARTIFACT_BYTES = 512 * 1024 * 1024
"""A report file larger than this is refused before it is read (`harness merge`, import)."""

# Non-blocking, so that opening a FIFO named like a report cannot hang the command.
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

_pending: set[str] = set()
"""Temp files being written now: what a stop signal removes before the process stops."""


def write_atomic(path: str, data: bytes | Iterable[bytes]) -> None:
    """Write `data` (bytes, or pieces of it) to `path` through a temp file, then rename it.

    Missing parent folders are created. On failure, or on a stop signal, the temp file is
    removed and any previous file at `path` is left as it was.

    Raises:
        ArtifactError: The file could not be written.
    """
    if os.path.islink(path):  # write where the link points: replacing the link loses it
        path = os.path.realpath(path)
    folder = os.path.dirname(os.path.abspath(path))
    with _removed_on_stop():
        try:
            os.makedirs(folder, exist_ok=True)
            fd, temp = _create_temp(folder, os.path.basename(path))
        except OSError as exc:
            raise ArtifactError(path, exc.strerror or str(exc)) from None
        try:
            with os.fdopen(fd, "wb") as file:
                if isinstance(data, bytes):
                    file.write(data)
                else:
                    file.writelines(data)
                file.flush()
                os.fsync(file.fileno())
            os.chmod(temp, 0o666 & ~_umask())
            os.replace(temp, path)
        except BaseException as exc:
            _remove(temp)
            if isinstance(exc, OSError):
                raise ArtifactError(path, exc.strerror or str(exc)) from None
            raise
        finally:
            _pending.discard(temp)


def _create_temp(folder: str, name: str) -> tuple[int, str]:
    """A new temp file beside the artifact, noted in `_pending` before it exists."""
    for _ in range(100):
        temp = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        _pending.add(temp)  # first: a signal right after the file appears still finds it
        try:
            return os.open(temp, _CREATE_FLAGS, 0o600), temp
        except FileExistsError:
            _pending.discard(temp)
        except BaseException:
            _pending.discard(temp)
            raise
    raise FileExistsError(17, "no unused temp file name")


def _remove(temp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(temp)


@contextlib.contextmanager
def _removed_on_stop() -> Iterator[None]:
    """While the block runs, a stop signal first removes the pending temp files.

    The handler then does what the signal did before: calls the previous handler (which may
    raise, as Ctrl-C's does), or ends the process the default way. Signal handlers can only be
    set from the main thread; elsewhere the `except` path alone cleans up.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handlers = {signum: signal.getsignal(signum) for signum in _STOP_SIGNALS}
    previous = {signum: handler for signum, handler in handlers.items() if handler is not None}
    for signum, handler in previous.items():
        signal.signal(signum, _cleaning(handler))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _cleaning(previous: Any) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        for temp in tuple(_pending):
            _remove(temp)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)  # die the way the signal would have
            os.kill(os.getpid(), signum)

    return handler


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def read_artifact(
    path: str,
    error: Callable[[str, str], HarnessError],
    max_bytes: int | None = None,
) -> bytes:
    """The bytes of a report file, read as fixtures are: bounded, and never blocking.

    Only a regular file is read: a folder, FIFO, socket or device (`/dev/zero`) is refused
    without blocking on it, and so is a file larger than `max_bytes` (`MAX_ARTIFACT_BYTES`).

    Raises:
        HarnessError: `error(path, reason)`, when the file cannot be read, is not a regular
            file, or is too large.
    """
    if max_bytes is None:
        max_bytes = MAX_ARTIFACT_BYTES
    limit = f"the {max_bytes}-byte limit for a report file"
    try:
        return read_regular(path, max_bytes, kind="report file", limit=limit)
    except UnreadableFile as exc:
        raise error(path, exc.reason) from None


def check_output(flag: str, path: str, *, folder: bool = False) -> None:
    """Refuse, before a run, an output path that could not be written after it.

    `path` is a file to write, or with `folder` a folder to write files into; missing folders
    on the way are created later, so what is checked is the nearest one that exists.

    Raises:
        UsageError: The path is empty, a file stands where a folder must be (or a folder where
            the file must be), or the nearest existing folder cannot be written.
    """
    if not path:
        raise UsageError(f"{flag}: the path is empty")
    full = os.path.abspath(path)
    if not folder and (os.path.isdir(full) or path.endswith(("/", os.sep))):
        raise UsageError(f"{flag} {path}: it is a folder")
    nearest = full if folder else os.path.dirname(full)
    while not os.path.lexists(nearest):
        nearest = os.path.dirname(nearest)
    shown = os.path.relpath(nearest) if not os.path.isabs(path) else nearest
    if not os.path.isdir(nearest):
        raise UsageError(f"{flag} {path}: {shown} is not a folder")
    if not os.access(nearest, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: {shown} is not writable")

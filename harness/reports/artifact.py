"""Report files: written atomically (a reader sees the old file or the new one, never half),
and read back with a bound (only a regular file, never blocking, never without end).

A signal that stops the process mid-write (SIGTERM, SIGINT) removes the temp file in the
signal handler itself, before the process stops: whatever the signal then does (raise, or end
the process the default way), no `.tmp` file is left beside the artifact.

An output never replaces what is not its own. A path that is not a regular file is never
renamed over (as root, a rename would turn `/dev/null` into a regular file): a character
device (`/dev/null`, a terminal) or a FIFO with a reader is written in place, and a stream of
this process (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`) through its descriptor; a socket,
a block device or a FIFO with no reader is refused. Before a run, `check_output` refuses an
existing regular file that is not an artifact of the output's kind (`Kind`): a report never
lands on `pyproject.toml`, a fixture, an agent's source or the history database.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from types import FrameType
from typing import Any, NamedTuple

from harness.errors import ArtifactError, HarnessError, UnreadableFile, UsageError
from harness.files import read_regular

__all__ = [
    "BASELINE",
    "FIXTURE",
    "HTML",
    "JSON_REPORT",
    "JUNIT",
    "MAX_ARTIFACT_BYTES",
    "Kind",
    "check_output",
    "is_in_place",
    "read_artifact",
    "spooling",
    "write_atomic",
]

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
    if is_in_place(path):
        _write_in_place(path, data)
        return
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


_STREAMS = re.compile(r"/dev/(?:(stdout)|(stderr)|stdin|fd/(\d+))|/proc/(self|\d+)/fd/(\d+)")
"""Paths that name a process's open stream, whatever it is (a pipe, a terminal, or a file the
shell opened): written in place, never replaced."""


def _own_stream(path: str) -> int | None:
    """The descriptor of this process that `path` names (`/dev/stdout`: 1), or None.

    Written through that descriptor, an artifact shares its offset with what the process
    prints there: a reopened path would start at 0 and be overwritten by the table.
    """
    found = _STREAMS.fullmatch(os.path.abspath(path))
    if found is None:
        return None
    out, err, fd, pid, proc_fd = found.groups()
    if pid is not None and pid not in ("self", str(os.getpid())):
        return None
    number = 1 if out else 2 if err else fd or proc_fd
    return None if number is None else int(number)


def is_in_place(path: str) -> bool:
    """Whether `path` is written in place, never replaced by a rename.

    Raises:
        ArtifactError: It is a kind of file no artifact may be written to.
    """
    if _STREAMS.fullmatch(os.path.abspath(path)):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # not there yet (or unreachable): the atomic write says why
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return True
    if stat.S_ISSOCK(mode) or stat.S_ISBLK(mode):
        what = "a socket" if stat.S_ISSOCK(mode) else "a block device"
        raise ArtifactError(path, f"is {what}: never written to, never replaced")
    return False


def _write_in_place(path: str, data: bytes | Iterable[bytes]) -> None:
    """Write into a device, a FIFO or a stream as it is: no temp file, no rename.

    The open does not block: a FIFO with no reader is refused, never waited on.
    """
    own = _own_stream(path)
    if own is not None:
        _write_own_stream(path, own, data)
        return
    flags = os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise ArtifactError(path, "is a FIFO or socket with no reader") from None
        raise ArtifactError(path, exc.strerror or str(exc)) from None
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode) or stat.S_ISBLK(os.fstat(fd).st_mode):
            raise ArtifactError(path, "is a socket or a block device: never written to")
        os.set_blocking(fd, True)  # a reader is there: the writes wait for it as a pipe's do
        with os.fdopen(fd, "wb", closefd=False) as file:
            file.writelines((data,) if isinstance(data, bytes) else data)
    except OSError as exc:
        raise ArtifactError(path, exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


@contextlib.contextmanager
def spooling(path: str | None) -> Iterator[None]:
    """Spool the artifact at `path` (None: a temporary file): an OSError in the block (a
    full disk, a file size limit) is its ArtifactError, one line, never a traceback."""
    try:
        yield
    except OSError as exc:
        import tempfile  # only to name the temp folder of a spool that failed

        raise ArtifactError(path or tempfile.gettempdir(), exc.strerror or str(exc)) from None


def _write_own_stream(path: str, fd: int, data: bytes | Iterable[bytes]) -> None:
    """Write to this process's own descriptor `fd`, after what Python buffered for it."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    try:
        with os.fdopen(os.dup(fd), "wb") as file:
            file.writelines((data,) if isinstance(data, bytes) else data)
    except OSError as exc:
        raise ArtifactError(path, exc.strerror or str(exc)) from None


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


class Kind(NamedTuple):
    """What an output writes, and how an existing file of that kind is told from any other."""

    what: str
    """The kind, as a reason names it: `a harness JSON report`."""
    start: bytes
    """What such a file starts with (after white space, compared without case)."""
    marks: tuple[bytes, ...]
    """What its first bytes all hold (compared without case)."""


JSON_REPORT = Kind("a harness JSON report", b"{", (b'"schema_version"', b'"harness_version"'))
JUNIT = Kind("a JUnit XML report", b"<?xml", (b"<testsuite",))
BASELINE = Kind("a harness baseline", b"{", (b'"harness/baseline/',))
HTML = Kind("a harness HTML page", b"<!doctype html", (b"harness",))
FIXTURE = Kind("a fixture", b"{", (b'"model_name"', b'"turns"'))

_NEVER_PLACEHOLDERS = (".py", ".pyi", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".sqlite", ".db")
"""Suffixes of an empty file that is still somebody's (an empty `__init__.py` makes a package)."""

_HEAD_BYTES = 256 * 1024
"""How much of an existing file is read to tell its kind."""


def check_output(flag: str, path: str, *, folder: bool = False, kind: Kind | None = None) -> None:
    """Refuse, before a run, an output path that could not be written after it, or whose
    writing would replace what is not the output's own.

    `path` is a file to write, or with `folder` a folder to write files into; missing folders
    on the way are created later, so what is checked is the nearest one that exists. An
    existing file at `path` may be replaced only when it is of `kind` (an earlier artifact of
    this output) or empty (a placeholder, unless named as code or configuration: an empty
    `__init__.py` makes a package); a device, FIFO or stream is written in place.

    Raises:
        UsageError: The path is empty, a file stands where a folder must be (or a folder where
            the file must be), the nearest existing folder cannot be written, the path is a
            socket or a block device, or a file not of `kind` is there.
    """
    if not path:
        raise UsageError(f"{flag}: the path is empty")
    try:
        if not folder and is_in_place(path):
            return  # a device or a stream: nothing is replaced, nothing created beside it
    except ArtifactError as exc:
        raise UsageError(f"{flag} {path}: {exc.reason}") from None
    if kind is not None and not _replaceable(path, kind):
        raise UsageError(
            f"{flag} {path}: it exists and is not {kind.what}: an output never replaces what"
            " is not its own (remove it, or choose another path)"
        )
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


def _replaceable(path: str, kind: Kind) -> bool:
    """Whether writing `path` replaces nothing but an empty file or an artifact of `kind`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return not os.path.isfile(path)  # missing: nothing replaced; unreadable: not known
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return True  # a folder, said next; a device or FIFO is never replaced
        head = os.read(fd, _HEAD_BYTES).lstrip().lower()
    except OSError:
        return False
    finally:
        os.close(fd)
    if not head:  # a placeholder (`mktemp`, `touch`), unless named as code or configuration
        return not path.endswith(_NEVER_PLACEHOLDERS)
    return head.startswith(kind.start) and all(mark in head for mark in kind.marks)

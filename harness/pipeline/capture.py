"""What a case's agent writes to stdout and stderr, captured per case as pytest does it.

The capture is at the file-descriptor level: descriptors 1 and 2 point at two temp files while
the case runs, so a C extension, a child process or a plain `print` all land there, never in
the harness's own output (a `--format json` stdout stays valid JSON). `sys.stdout` and
`sys.stderr` are swapped for writers over those descriptors too, since a test runner or the
agent's host may have replaced them with objects that never reach a descriptor.

The temp files are made once per process and emptied for each case: a case costs a few system
calls, not a file created and removed. What is read back is bounded: at most `limit`
characters per stream, cut with the visible marker of `harness.text.truncate`; the rest is
only counted, never held in memory.

`live=True` (`harness run -s`) captures nothing and shows the agent's output as it comes, on
stderr: its stdout is pointed at descriptor 2 for the case, so stdout still carries only the
harness's report.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from types import TracebackType
from typing import IO, Any

import msgspec

from harness.config import DEFAULT_OUTPUT_LIMIT
from harness.masking import redact
from harness.text import truncate

__all__ = ["DEFAULT_OUTPUT_LIMIT", "Capture", "Captured"]

_CHUNK = 1 << 20
_CONTINUATION = bytes(range(0x80, 0xC0))
"""UTF-8 continuation bytes: every other byte starts a character."""
_files: tuple[int, IO[bytes], IO[bytes]] | None = None
"""This process's two capture files, and the process that made them (a fork must not share)."""


class Captured(msgspec.Struct, frozen=True, kw_only=True):
    """One case's output: each stream bounded, and how much of each there was."""

    stdout: str = ""
    stderr: str = ""
    stdout_chars: int = 0
    """Characters written to stdout in all (more than `stdout` holds when it was cut)."""
    stderr_chars: int = 0

    def overflow_error(self, limit: int) -> str | None:
        """Why the case errors for writing more than `limit` characters, or None."""
        streams = [
            f"{chars} characters to {name}"
            for name, chars in (("stdout", self.stdout_chars), ("stderr", self.stderr_chars))
            if chars > limit
        ]
        if not streams:
            return None
        return (
            f"the agent wrote {' and '.join(streams)}, over the capture limit of {limit} "
            "(max_output_chars); the captured output is cut"
        )


class Capture:
    """A context manager capturing descriptors 1 and 2 for one case (see the module)."""

    def __init__(self, limit: int = DEFAULT_OUTPUT_LIMIT, *, live: bool = False) -> None:
        self._limit = limit
        self._live = live
        self._saved: tuple[int | None, int | None] = (None, None)
        self._streams: tuple[Any, Any] = (None, None)
        self._writers: list[IO[str]] = []
        self.result = Captured()
        """What the case wrote, set when the block ends (empty when live)."""

    def __enter__(self) -> Capture:
        _flush()
        self._streams = (sys.stdout, sys.stderr)
        self._saved = (_dup(1), _dup(2))
        if self._live:
            if self._saved[1] is not None:
                os.dup2(2, 1)
            sys.stdout = sys.stderr
            return self
        _, out, err = _capture_files()
        for file, fd in ((out, 1), (err, 2)):
            os.ftruncate(file.fileno(), 0)
            os.lseek(file.fileno(), 0, os.SEEK_SET)
            os.dup2(file.fileno(), fd)
        self._writers = [_writer(1), _writer(2)]
        sys.stdout, sys.stderr = self._writers
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _flush()
        for writer in self._writers:
            with contextlib.suppress(Exception):  # the agent may have closed it
                writer.close()
        sys.stdout, sys.stderr = self._streams
        for fd, saved in zip((1, 2), self._saved, strict=True):
            if saved is None:  # it was closed before the case: closed it stays
                with contextlib.suppress(OSError):
                    os.close(fd)
                continue
            os.dup2(saved, fd)
            os.close(saved)
        if not self._live:
            _, out, err = _capture_files()
            stdout, stdout_chars = _read(out, self._limit)
            stderr, stderr_chars = _read(err, self._limit)
            self.result = Captured(
                stdout=stdout, stderr=stderr, stdout_chars=stdout_chars, stderr_chars=stderr_chars
            )


def _dup(fd: int) -> int | None:
    """A copy of `fd` to restore it from, or None when it is closed (`harness run >&-`).

    The copy is numbered 3 or above: with descriptor 1 closed, a plain `dup(2)` would land on
    1 and be overwritten by the capture.
    """
    try:
        if sys.platform == "win32":
            return os.dup(fd)
        import fcntl  # deferred: not on Windows

        copy: int = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        return None
    return copy


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed or broken stream flushes nothing
            stream.flush()


def _writer(fd: int) -> IO[str]:
    """A line-buffered text writer over `fd`, which it leaves open."""
    return open(fd, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)


def _capture_files() -> tuple[int, IO[bytes], IO[bytes]]:
    global _files
    if _files is None or _files[0] != os.getpid():
        import tempfile  # only a run of the project's own code captures

        # Kept open for the life of the process, emptied for each case.
        out = tempfile.TemporaryFile()  # noqa: SIM115
        err = tempfile.TemporaryFile()  # noqa: SIM115
        if _files is None:
            atexit.register(_close_files)
        _files = (os.getpid(), out, err)
    return _files


def _close_files() -> None:
    """At exit, close this process's capture files (a forked child's own are its to close)."""
    if _files is not None and _files[0] == os.getpid():
        for file in _files[1:]:
            with contextlib.suppress(Exception):
                file.close()


_MARGIN = 4096
"""Bytes read past the limit: a secret that straddles the cut is read whole, masked, then cut
(cut first, its head would no longer look like a secret and go out as it was)."""


def _read(file: IO[bytes], limit: int) -> tuple[str, int]:
    """The first `limit` characters written into `file`, redacted, with the marker, and the
    total."""
    fd = file.fileno()
    size = os.fstat(fd).st_size
    # A character is at most 4 bytes; the margin keeps a secret at the cut whole.
    head = os.pread(fd, min(size, limit * 4 + _MARGIN), 0)
    raw = head.decode("utf-8", "replace")
    text = redact(raw)
    if len(head) == size:
        return truncate(text, limit), len(raw)
    # Past what was read, only count characters (the bytes that start one), chunk by chunk.
    total, offset = len(raw), len(head)
    while offset < size:
        chunk = os.pread(fd, _CHUNK, offset)
        if not chunk:
            break
        offset += len(chunk)
        total += len(chunk.translate(None, _CONTINUATION))
    return f"{text[:limit]}…[truncated {max(total - limit, 0)} chars]", total

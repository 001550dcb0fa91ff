"""Writing to a reader that may go away (`harness trend | head -1`): quietly, never a traceback.

When the reader of stdout closes the pipe, writing raises `BrokenPipeError`. A command then
stops writing to stdout, says nothing more, and keeps its own exit status: a run still
writes its artifacts and still exits 1 when a case failed.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

__all__ = ["reader_gone", "write"]


def write(stream: TextIO, text: str) -> bool:
    """Write and flush `text`; False (and the stream silenced) if its reader went away."""
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        reader_gone(stream)
        return False
    return True


def reader_gone(stream: TextIO | None = None) -> None:
    """Point `stream` (stdout by default) at /dev/null, so nothing more meets the closed pipe.

    Python flushes stdout once more at exit; on the closed pipe that would print an error.
    """
    stream = sys.stdout if stream is None else stream
    try:
        descriptor = stream.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):  # not a real file (main() embedded)
        return
    os.dup2(devnull, descriptor)
    os.close(devnull)

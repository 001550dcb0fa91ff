"""What a run or a merge shows on stdout: the table's lines or the JSON report's pieces.

Stdout comes last, after every artifact, and a stdout that fails (a reader gone, as with
`| head`; a closed stdout; a full disk; an encoding that cannot hold the text) never loses
a report or changes the verdict: `to_stdout` sets it aside with at most one line on stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from harness.text import complain

__all__ = ["show_json", "show_lines", "to_stdout"]


def to_stdout(write: Callable[[TextIO], object]) -> bool:
    """Run `write` on stdout, and flush it; False when stdout failed, which is then set aside.

    A reader that went away is said nothing of; any other failure gets one line on stderr.
    Text the stream's encoding cannot hold is written escaped (`\\u2713`), not refused.
    """
    stream = sys.stdout
    if stream is None:  # started with stdout closed
        complain("stdout is closed: nothing was shown")
        return False
    try:
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
        write(stream)
        stream.flush()
    except BrokenPipeError:
        _set_aside()
        return False
    except (OSError, ValueError, UnicodeError) as exc:  # ValueError: stdout was closed
        _set_aside()
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        complain(f"cannot write to stdout: {reason}")
        return False
    return True


def show_lines(lines: Iterable[str], after: str = "") -> Callable[[TextIO], None]:
    """What writes `lines` (the table's), then the lines of `after`."""

    def write(stream: TextIO) -> None:
        # In batches of lines: a large run's table is never held whole as one text.
        batch: list[str] = []
        for line in lines:
            batch.append(line)
            if len(batch) == 1024:
                stream.write("\n".join(batch) + "\n")
                batch.clear()
        if batch:
            stream.write("\n".join(batch) + "\n")
        if after:
            stream.write(after + "\n")

    return write


def show_json(pieces: Iterable[bytes]) -> Callable[[TextIO], None]:
    """What writes the JSON report, given in pieces, as its bytes are."""

    def write(stream: TextIO) -> None:
        binary = getattr(stream, "buffer", None)
        if binary is None:  # a text-only stream (main() embedded with redirected stdout)
            stream.write(b"".join(pieces).decode())
            return
        stream.flush()
        binary.writelines(pieces)
        binary.flush()

    return write


def _set_aside() -> None:
    """Point stdout's descriptor at the null device: what is still buffered goes nowhere,
    rather than failing again when the interpreter flushes it on its way out."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno() if sys.stdout is not None else 1)
        os.close(null)
    except (OSError, ValueError):  # no descriptor to point anywhere
        sys.stdout = None

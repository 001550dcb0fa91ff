"""What one run writes: the report rendered once per format, shown, and written as artifacts.

Stdout comes last, after every artifact, and a stdout that fails (a reader gone, as with
`| head`; a closed stdout; a full disk; an encoding that cannot hold the text) never loses
a report or changes the verdict: `to_stdout` sets it aside with at most one line on stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TextIO

from harness.reports.artifact import write_atomic
from harness.text import complain

if TYPE_CHECKING:
    from harness.reports.model import SuiteReport
    from harness.reports.recap import Paint

__all__ = ["Outputs", "show", "show_json", "show_table", "to_stdout", "write_artifacts"]


class Outputs:
    """The renderings of one report, each made at most once."""

    def __init__(self, report: SuiteReport, *, git_commit: str | bool | None = True) -> None:
        self.report = report
        self._commit = git_commit
        self._json: list[bytes] | None = None

    @property
    def git_commit(self) -> str | None:
        """The commit under test: given, or (True) found when first needed."""
        if self._commit is True:
            from harness.reports.provenance import git_commit

            self._commit = git_commit()
        return self._commit or None

    def json_chunks(self) -> list[bytes]:
        """The JSON report in pieces (`document.json_chunks`): never held twice."""
        if self._json is None:
            from harness.reports.document import json_chunks

            self._json = json_chunks(self.report, git_commit=self.git_commit)
        return self._json

    def json(self) -> bytes:
        return b"".join(self.json_chunks())

    def junit(self, flavor: str = "full") -> bytes:
        from harness.reports.junit import to_junit_xml

        return to_junit_xml(self.report, git_commit=self.git_commit, flavor=flavor)


def show(outputs: Outputs, output_format: str) -> None:
    if output_format == "json":
        binary = getattr(sys.stdout, "buffer", None)
        if binary is None:  # a text-only stream (main() embedded with redirected stdout)
            sys.stdout.write(outputs.json().decode())
        else:
            sys.stdout.flush()
            binary.writelines(outputs.json_chunks())  # bytes as they are: no decoded copy
    else:
        from harness.reports.table import render_table

        print(render_table(outputs.report))
    sys.stdout.flush()


def write_artifacts(
    outputs: Outputs,
    *,
    json_path: str | None,
    junit_path: str | None,
    junit_flavor: str = "full",
) -> None:
    if json_path:
        write_atomic(json_path, outputs.json_chunks())
    if junit_path:
        write_atomic(junit_path, outputs.junit(junit_flavor))


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


def show_table(
    report: SuiteReport,
    paint: Paint | None = None,
    marks: Sequence[str] | None = None,
    after: str = "",
) -> Callable[[TextIO], None]:
    """What writes `report` as the table (colored by `paint`, when given, with a `baseline`
    column of `marks`), then the lines of `after`."""

    def write(stream: TextIO) -> None:
        from harness.reports.table import table_lines

        # In batches of lines: a large run's table is never held whole as one text.
        batch: list[str] = []
        for line in table_lines(report, paint, marks):
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

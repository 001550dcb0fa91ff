"""What one run writes: the report rendered once per format, shown, and written as artifacts."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from harness.reports.artifact import write_atomic

if TYPE_CHECKING:
    from harness.reports.model import SuiteReport

__all__ = ["Outputs", "show", "write_artifacts"]


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

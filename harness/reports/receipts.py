"""Run receipts on disk: one JSON file per failed or errored case (`--dump-records DIR`).

Each file is that case's part of the JSON report (the recorded calls, the final response, the
request bodies of a wire run, every grade with its category and the score), so a CI failure
can be read without re-running. The case reports are already redacted, as every artifact is.
"""

from __future__ import annotations

import os
import re

from harness.reports.artifact import write_atomic
from harness.reports.document import case_json
from harness.reports.model import SuiteReport

__all__ = ["dump_records"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def dump_records(report: SuiteReport, directory: str) -> list[str]:
    """Write a file for each case that failed or errored; the paths written, in case order."""
    written: list[str] = []
    taken: set[str] = set()
    for case in report.cases:
        if case.passed or case.skipped is not None:
            continue
        stem = _UNSAFE.sub("_", case.case_id or case.name).strip("._") or "case"
        name, n = stem, 1
        while name in taken:  # two ids that clean up to the same name
            n += 1
            name = f"{stem}-{n}"
        taken.add(name)
        path = os.path.join(directory, f"{name}.json")
        write_atomic(path, case_json(case))
        written.append(path)
    return written

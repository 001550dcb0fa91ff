"""The records dump: one JSON file per failed or errored case (`--dump-records DIR`).

Each file is that case's part of the JSON report (the recorded calls, the final response, the
request bodies of a wire run, every grade with its category and the score), so a CI failure
can be read without re-running. The case reports are already redacted, as every artifact is.
"""

from __future__ import annotations

import hashlib
import os
import re

from harness.reports.artifact import write_atomic
from harness.reports.document import case_json
from harness.reports.model import CaseReport

__all__ = ["RecordsDump"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_LONGEST = 120
"""Characters of a file name's stem: with `-N` and `.json`, well inside any file system's 255."""


class RecordsDump:
    """The records of one run's failed and errored cases, written to `directory` case by
    case as each finishes (a run's writer, beside its reports).

    Ids are told apart across the whole run, and without case (`Up` and `up` would be one
    file on a case-insensitive file system), so no case's file overwrites another's.
    """

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._taken: set[str] = set()

    def add(self, case: CaseReport) -> str | None:
        """Write `case`'s file if it failed or errored; the path written, or None."""
        if case.passed or case.skipped is not None:
            return None
        stem = self._name(case.case_id or case.name)
        path = os.path.join(self.directory, f"{stem}.json")
        write_atomic(path, case_json(case))
        return path

    def _name(self, identity: str) -> str:
        stem = _UNSAFE.sub("_", identity).strip("._") or "case"
        if len(stem) > _LONGEST:  # a digest of the whole id keeps two long ids apart
            digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:12]
            stem = f"{stem[: _LONGEST - len(digest) - 1]}-{digest}"
        name, n = stem, 1
        while name.casefold() in self._taken:  # two ids that clean up to one name
            n += 1
            name = f"{stem}-{n}"
        self._taken.add(name.casefold())
        return name

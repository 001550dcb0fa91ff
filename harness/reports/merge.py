"""Merging shard reports back into one suite report.

Each shard's JSON report records its shard (`I/N`) and the size of the whole suite, so a merge
can refuse what would silently misreport: parts of different suites, modes or commits, a case
reported twice, a shard given twice, a missing shard, or parts that do not add up to the suite.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.errors import MergeError
from harness.reports.document import ReportDocument, decode_document, from_document
from harness.reports.model import CaseReport, SuiteReport

__all__ = ["merge_reports", "read_part"]


def read_part(path: str) -> ReportDocument:
    """One shard's JSON report.

    Raises:
        MergeError: It cannot be read or is not a harness JSON report.
    """
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        raise MergeError(path, f"cannot read: {exc.strerror or exc}") from None
    return decode_document(data, path, MergeError)


def merge_reports(parts: Sequence[tuple[str, ReportDocument]]) -> SuiteReport:
    """The suite report the shards add up to, cases in suite (file-name) order.

    Each case is kept whole, as its part holds it, so the merged report is the unsharded
    run's (its start and duration aside: the earliest start, the longest shard).

    Raises:
        MergeError: The parts do not form exactly one whole suite run.
    """
    if not parts:
        raise MergeError("harness merge", "no parts given")
    first_path, first = parts[0]
    _check_same(parts, first_path, first)
    _check_shards(parts, first_path, first)
    seen: dict[str, str] = {}
    cases: list[CaseReport] = []
    for path, part in parts:
        for case in from_document(part).cases:
            if case.name in seen:
                raise MergeError(path, f'case "{case.name}" is also in {seen[case.name]}')
            seen[case.name] = path
            cases.append(case)
    expected = first.suite_total if first.suite_total is not None else len(cases)
    if len(cases) != expected:
        raise MergeError(first_path, f"the parts hold {len(cases)} cases, the suite has {expected}")
    cases.sort(key=lambda case: case.source)
    return SuiteReport(
        suite=first.suite,
        directory=first.suite_dir,
        mode=first.mode,
        cases=tuple(cases),
        started_at=min(part.started_at for _, part in parts),
        duration=max(part.duration_s for _, part in parts),
        suite_total=expected,
    )


def _check_same(
    parts: Sequence[tuple[str, ReportDocument]], first_path: str, first: ReportDocument
) -> None:
    for path, part in parts[1:]:
        for field in ("suite", "mode", "git_commit"):
            mine, theirs = getattr(part, field), getattr(first, field)
            if mine != theirs:
                raise MergeError(path, f"{field} is {mine!r}, but {first_path} has {theirs!r}")


def _check_shards(
    parts: Sequence[tuple[str, ReportDocument]], first_path: str, first: ReportDocument
) -> None:
    if any(part.shard is None for _, part in parts):
        if len(parts) > 1:
            path = next(path for path, part in parts if part.shard is None)
            raise MergeError(
                path, "is not a shard report (it has no shard): nothing to merge it with"
            )
        return
    total = first.shard.total if first.shard else 0
    indexes: dict[int, str] = {}
    for path, part in parts:
        assert part.shard is not None  # checked above
        if part.shard.total != total:
            raise MergeError(
                path, f"is shard {part.shard}, but {first_path} splits the suite in {total}"
            )
        if part.shard.index in indexes:
            raise MergeError(
                path, f"shard {part.shard} is also given as {indexes[part.shard.index]}"
            )
        indexes[part.shard.index] = path
    missing = sorted(set(range(1, total + 1)) - set(indexes))
    if missing:
        listed = ", ".join(f"{index}/{total}" for index in missing)
        raise MergeError(first_path, f"shard(s) {listed} missing: every shard's report is needed")

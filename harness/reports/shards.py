"""Merging shard reports back into one suite report.

Each shard's JSON report records its shard (`I/N`) and the size of the whole suite, so a merge
can refuse what would silently misreport: parts of different suites, modes or commits, a case
reported twice, a shard given twice or out of range, a missing shard, a suite size that cannot
be, or parts that do not add up to the suite. A part of an interrupted shard is merged as far
as it got, and the merged report keeps the interruption.

A merged report claims the whole suite, so a part that ran only some of its shard's cases (a
selection: `-k`, paths, `--last-failed`; or `-x`, which stopped at a failure) is refused, never
merged into a report whose failing case simply never ran. So is a case whose verdict contradicts
its own evidence (a `skipped` case that carries grades, a passed case with a failed grade or an
error): a report edited by hand, or by something else, does not decide the exit status.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from harness.errors import MergeError
from harness.fixtures.duplicates import duplicate_key
from harness.reports.artifact import read_artifact
from harness.reports.document import (
    CaseDocument,
    ReportDocument,
    decode_document,
    from_document,
)
from harness.reports.model import CaseReport, SuiteReport
from harness.text import printable

__all__ = ["merge_reports", "read_part"]


def read_part(path: str) -> ReportDocument:
    """One shard's JSON report.

    Only a regular file is read, with a bound, never blocking (a FIFO or a device is refused).
    A key written twice is refused: a decoder keeps the last, so `"grades"` written twice
    could hide a failed check behind a passing one.

    Raises:
        MergeError: It cannot be read, is not a harness JSON report, or repeats a key.
    """
    data = read_artifact(path, MergeError)
    document = decode_document(data, path, MergeError)
    repeated = duplicate_key(data, document)
    if repeated is not None:
        raise MergeError(path, f"{repeated[0]}: {repeated[1]}")
    return document


def merge_reports(parts: Sequence[tuple[str, ReportDocument]]) -> SuiteReport:
    """The suite report the shards add up to, cases in suite (file-name) order.

    Each case is kept whole, as its part holds it, so the merged report is the unsharded
    run's (its start and duration aside: the earliest start, the longest shard). When a part
    was interrupted, the merged report is too (by the first such part's signal), and it holds
    the cases that finished.

    Raises:
        MergeError: The parts do not form exactly one whole suite run.
    """
    if not parts:
        raise MergeError("harness merge", "no parts given")
    first_path, first = parts[0]
    _check_same(parts, first_path, first)
    for path, part in parts:
        _check_range(path, part)
        _check_whole(path, part)
    _check_shards(parts, first_path, first)
    seen: dict[str, str] = {}
    cases: list[CaseReport] = []
    for path, part in parts:
        for case in from_document(part).cases:
            if case.name in seen:
                raise MergeError(path, f'case "{case.name}" is also in {seen[case.name]}')
            seen[case.name] = path
            cases.append(case)
    for path, part in parts:
        _check_share(path, part)
    interrupted = next((part.interrupted for _, part in parts if part.interrupted), None)
    expected = first.suite_total if first.suite_total is not None else len(cases)
    if len(cases) != expected and interrupted is None:
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
        interrupted=interrupted,
        tool_surface=first.tool_surface,
    )


def _check_same(
    parts: Sequence[tuple[str, ReportDocument]], first_path: str, first: ReportDocument
) -> None:
    for path, part in parts[1:]:
        for field in ("suite", "mode", "git_commit", "suite_total", "tool_surface"):
            mine, theirs = getattr(part, field), getattr(first, field)
            if mine != theirs:
                raise MergeError(path, f"{field} is {mine!r}, but {first_path} has {theirs!r}")


def _check_range(path: str, part: ReportDocument) -> None:
    """A part's shard is `I/N` with 1 <= I <= N."""
    shard = part.shard
    if shard is not None and not 1 <= shard.index <= shard.total:
        raise MergeError(path, f"shard {shard} is out of range (I/N needs 1 <= I <= N)")


def _check_whole(path: str, part: ReportDocument) -> None:
    """A part ran every case of its shard, and each case's verdict agrees with its grades."""
    if part.selection is not None:
        raise MergeError(
            path,
            f"ran a selection of the suite ({printable(part.selection)}): a merge claims the"
            " whole suite; run each shard without -k, paths or --last-failed",
        )
    if part.stopped_early:
        raise MergeError(path, "stopped at its first failure (-x): the rest of its cases never ran")
    for index, case in enumerate(part.cases):
        contradiction = _contradiction(case)
        if contradiction is not None:
            raise MergeError(
                path, f'$.cases[{index}]: case "{printable(case.name)}" {contradiction}'
            )


def _contradiction(case: CaseDocument) -> str | None:
    """How a case's status contradicts its evidence, or None when they agree."""
    failed = any(not grade.passed for grade in case.grades)
    if case.skipped is not None:  # a skipped case never ran: nothing of a run may be in it
        ran = ("grades", case.grades), ("an error", case.error is not None), ("a pass", case.passed)
        found = next((what for what, there in ran if there), None)
        return None if found is None else f"is skipped, but it has {found}: it was run"
    if case.passed and case.error is not None:
        return "is passed, but it has an error"
    if case.passed and (failed or not case.grades):
        return "is passed, but " + ("a grade failed" if failed else "it has no grade")
    if not case.passed and case.error is None and case.grades and not failed:
        return "is failed, but every grade passed and it has no error"
    return None


def _check_share(path: str, part: ReportDocument) -> None:
    """A part holds as many cases as its shard's share of the suite (fewer if interrupted)."""
    shard = part.shard
    if part.suite_total is None:
        return
    held = len(part.cases)
    if part.suite_total < 0:
        raise MergeError(path, f"suite_total {part.suite_total} is negative")
    share = (
        part.suite_total if shard is None else _share(shard.index, shard.total, part.suite_total)
    )
    if held > share or (held < share and part.interrupted is None):
        of = "the suite" if shard is None else f"shard {shard}"
        raise MergeError(
            path,
            f"suite_total {part.suite_total} cannot be: it holds {held} case(s), but {of} of"
            f" a {part.suite_total}-case suite holds {share}",
        )


def _share(index: int, total: int, cases: int) -> int:
    """How many of `cases` shard `index`/`total` takes: every `total`-th from the index-th."""
    return max(0, (cases - index) // total + 1)


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
    if len(indexes) < total:  # name the first few missing, never listing all of a huge N
        missing = itertools.islice(
            (index for index in range(1, total + 1) if index not in indexes), 5
        )
        listed = ", ".join(f"{index}/{total}" for index in missing)
        more = total - len(indexes) - 5
        listed += f" and {more} more" if more > 0 else ""
        raise MergeError(first_path, f"shard(s) {listed} missing: every shard's report is needed")

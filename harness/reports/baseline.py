"""Baselines: a run's per-case verdicts, kept, and the next run compared with them.

`harness run --write-baseline PATH` records each case's verdict with its `case_hash`, the mode
and the tool surface (schema `harness/baseline/v1`); a run in which a case errored, that
stopped at its first failure or that was interrupted writes none, since a baseline needs every
verdict.

`harness run --baseline PATH` then excuses known failures, and nothing else: a case that fails
now passes the gate only when the baseline holds the same failure (the same id, the same
`case_hash`, verdict `fail`). Every other failure gates as it would without a baseline: a
regression (pass→fail), a new case, a case whose fixture changed, a case the baseline holds as
skipped, and every case of a baseline that compares none; so does a case that errors, and a
run whose every case was skipped. A baseline of another suite, mode or tool surface is refused
(`foreign`): its verdicts are not this run's. Passing cases never gate; changed, new and fixed
cases, cases skipped now that passed then, and the baseline's cases this run did not run are
reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

from harness.errors import UsageError
from harness.fixtures.duplicates import repeated_key
from harness.reports.artifact import MAX_ARTIFACT_BYTES, read_artifact, write_atomic
from harness.reports.columns import lay_out
from harness.reports.junit import Mark
from harness.reports.model import CaseReport, SuiteReport
from harness.text import printable

__all__ = [
    "MARKS",
    "SCHEMA",
    "Baseline",
    "Comparison",
    "compare",
    "foreign",
    "junit_marks",
    "read_baseline",
    "unwritten",
    "write_baseline",
]

SCHEMA = "harness/baseline/v1"
"""The `schema` of every baseline file this harness writes and reads."""

Verdict = Literal["pass", "fail", "skipped"]
Flip = Literal[
    "regressed",
    "fixed",
    "changed",
    "new",
    "still passing",
    "still failing",
    "skipped",
    "skipped since passing",
    "errored",
    "failing",
]

MARKS: dict[str, str] = {
    "regressed": "REGRESSED",
    "errored": "errored",
    "failing": "FAILING",
    "fixed": "fixed",
    "changed": "changed",
    "new": "new",
}
"""The table's `baseline` cell of each flip worth a look (the others leave it empty)."""

_NAMES_SHOWN = 50
"""Names listed on one line of the comparison; the table's `baseline` column has them all."""


class BaselineCase(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One case's verdict in a baseline."""

    id: str
    case_hash: str
    verdict: Verdict
    name: str = ""


class Baseline(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The verdicts of one run, to compare later runs with."""

    schema: str
    suite: str
    mode: str
    tool_surface: str
    cases: tuple[BaselineCase, ...]


class _Head(msgspec.Struct, frozen=True):
    """A baseline's schema alone: what names a file of another version that the form refused."""

    schema: str


class CaseFlip(msgspec.Struct, frozen=True, kw_only=True):
    """How one case of this run compares with the baseline."""

    id: str
    name: str
    flip: Flip


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    """This run against a baseline."""

    cases: tuple[CaseFlip, ...]
    """Each case of this run, in run order."""
    not_run: tuple[str, ...] = ()
    """The names of the baseline's cases this run did not run (removed, renamed, unselected)."""
    disjoint: bool = False
    """No case of this run is in the baseline: nothing is compared, every failure gates."""

    def of(self, flip: Flip) -> list[CaseFlip]:
        """The cases of one kind, in run order."""
        return [case for case in self.cases if case.flip == flip]

    @property
    def all_skipped(self) -> bool:
        """Whether the run skipped every case it had: nothing was graded."""
        skips = ("skipped", "skipped since passing")
        return bool(self.cases) and all(case.flip in skips for case in self.cases)

    def exit_code(self) -> int:
        """1 when a case fails or errors that the baseline does not excuse (a regression, a
        new, changed or unknown failure), or nothing was graded; else 0."""
        gating = self.of("regressed") or self.of("errored") or self.of("failing")
        return 1 if gating or self.all_skipped else 0

    def marks(self) -> list[str]:
        """The table's `baseline` cell of each case, in run order."""
        return [MARKS.get(case.flip, "") for case in self.cases]

    def render(self) -> str:
        """The comparison as a table: a row per case worth a look, grouped by kind (at most
        `_NAMES_SHOWN` of each, the rest counted under them), then what else it found."""
        rows: list[tuple[str, str, str]] = []
        more: dict[int, str] = {}  # a line under the row at that index
        for mark, what, names in self._found():
            rows += [(mark, name, what) for name in names[:_NAMES_SHOWN]]
            if len(names) > _NAMES_SHOWN:
                more[len(rows) - 1] = f"      (+{len(names) - _NAMES_SHOWN} more {mark})"
        lines = []
        if rows:
            head, rule, *laid = lay_out(("baseline", "case", "since the baseline"), rows)
            lines += ["", head, rule]
            for index, line in enumerate(laid):
                lines += [line, more[index]] if index in more else [line]
        return "\n".join([*lines, *self._notes(bool(rows))])

    def summary(self) -> list[str]:
        """What the comparison found, one line per kind that occurred (the HTML report's)."""
        found = self._found()
        lines = [_line(f"{mark} ({what})", names) for mark, what, names in found]
        return [*lines, *self._notes(bool(found))]

    def _found(self) -> list[tuple[str, str, Sequence[str]]]:
        """Each kind that occurred: its mark, what it means, and its cases' names."""
        found: list[tuple[str, str, Sequence[str]]] = [
            (mark, what, [case.name for case in self.of(flip)]) for flip, mark, what in _KINDS
        ]
        found.append((*_NOT_RUN, self.not_run))
        return [kind for kind in found if kind[2]]

    def _notes(self, flipped: bool) -> list[str]:
        notes = []
        if self.all_skipped:
            notes.append("baseline: every case was skipped: nothing was graded (gates)")
        if self.disjoint:
            notes.append(
                "baseline: no case of this run is in the baseline: nothing was compared (a "
                "wrong or stale baseline? the run's own verdicts gate)"
            )
        if not flipped and not notes:
            notes.append("baseline: no case flipped")
        return notes


_KINDS: tuple[tuple[Flip, str, str], ...] = (
    ("regressed", "REGRESSED", "passed in the baseline, fails now"),
    ("errored", "errored", "a run error gates"),
    ("failing", "FAILING", "fails now; the baseline holds no such failure to excuse"),
    ("changed", "changed", "fixture differs, passes now: refresh the baseline"),
    ("new", "new", "not in the baseline"),
    ("fixed", "fixed", "failed in the baseline, passes now"),
    ("skipped since passing", "skipped", "passed in the baseline, skipped now (not gated)"),
)
"""Each kind of case the comparison shows, in its order: its mark, and what it means."""
_NOT_RUN = ("not run", "in the baseline, not in this run: removed, renamed or not selected")


def _line(label: str, names: Sequence[str]) -> str:
    shown = ", ".join(printable(name) for name in names[:_NAMES_SHOWN])
    if len(names) > _NAMES_SHOWN:
        shown += f" (+{len(names) - _NAMES_SHOWN} more)"
    return f"baseline: {len(names)} {label}: {shown}"


def _verdict(case: CaseReport) -> Verdict:
    if case.skipped is not None:
        return "skipped"
    return "pass" if case.passed else "fail"


def unwritten(report: SuiteReport, *, complete: bool = True) -> str | None:
    """Why no baseline may be made of `report`, or None: it must hold every case's verdict.

    `complete` says whether the run finished every case it had.
    """
    if report.interrupted is not None:
        return f"the run was interrupted by {report.interrupted}"
    if report.stopped_early:
        return "the run stopped at its first failure (-x)"
    if report.errored:
        return f"the run had {report.errored} errored case(s), and errors are not verdicts"
    # A baseline of part of the suite would leave the rest out, and a case missing from the
    # baseline comes back `new`, which never gates: its regressions would pass unseen.
    if report.selection is not None:
        return f"the run selected its cases ({printable(report.selection)}), not the whole suite"
    if report.shard is not None:
        return f"the run was shard {report.shard} of the suite, not the whole suite"
    if not complete:
        return "the run did not finish every case"
    return None


def write_baseline(report: SuiteReport, path: str, *, complete: bool = True) -> str | None:
    """Write the per-case verdicts of `report` to `path`; or why not (`unwritten`).

    Raises:
        ArtifactError: The file cannot be written.
    """
    why = unwritten(report, complete=complete)
    if why is not None:
        return f"{path}: baseline not written: {why}"
    baseline = Baseline(
        schema=SCHEMA,
        suite=report.suite,
        mode=report.mode,
        tool_surface=report.tool_surface,
        cases=tuple(
            BaselineCase(
                id=case.case_id, case_hash=case.case_hash, verdict=_verdict(case), name=case.name
            )
            for case in report.cases
        ),
    )
    write_atomic(path, msgspec.json.format(msgspec.json.encode(baseline), indent=2) + b"\n")
    return None


def read_baseline(path: str) -> Baseline:
    """The baseline in `path`: a regular file, read bounded, never waited on.

    Raises:
        UsageError: It cannot be read, is not a `harness/baseline/v1` file, or names a case
            id twice.
    """
    data = read_artifact(path, _refused, MAX_ARTIFACT_BYTES)
    try:
        baseline = msgspec.json.decode(data, type=Baseline)
        schema = baseline.schema
    except (msgspec.MsgspecError, RecursionError) as exc:
        try:  # a file of another version is named as such, not as malformed
            schema = msgspec.json.decode(data, type=_Head).schema
        except (msgspec.MsgspecError, RecursionError):
            schema = SCHEMA
        if schema == SCHEMA:
            reason = "it nests too deep" if isinstance(exc, RecursionError) else exc
            raise UsageError(f"{path}: not a harness baseline: {reason}") from None
    if schema != SCHEMA:
        raise UsageError(f'{path}: baseline schema is "{printable(schema)}", expected "{SCHEMA}"')
    repeated = repeated_key(data)  # a decoder keeps the last: which verdict would count?
    if repeated is not None:
        raise UsageError(f"{path}: {repeated[0]}: {repeated[1]}")
    seen: set[str] = set()
    for index, case in enumerate(baseline.cases):
        if case.id in seen:  # which verdict would count? Neither: the file is refused
            where = f"$.cases[{index}].id"
            raise UsageError(f'{path}: {where}: case id "{printable(case.id)}" appears twice')
        seen.add(case.id)
    return baseline


def _refused(path: str, reason: str) -> UsageError:
    return UsageError(f"{path}: {reason}")


def compare(baseline: Baseline, report: SuiteReport) -> Comparison:
    """How each case of `report` compares with its namesake (by id) in `baseline`."""
    before = {case.id: case for case in baseline.cases}
    flips = tuple(
        CaseFlip(id=case.case_id, name=case.name, flip=_flip(before.get(case.case_id), case))
        for case in report.cases
    )
    ran = {case.case_id for case in report.cases}
    return Comparison(
        cases=flips,
        not_run=tuple(case.name or case.id for case in baseline.cases if case.id not in ran),
        disjoint=bool(ran) and ran.isdisjoint(before),
    )


def foreign(
    baseline: Baseline, *, suite: str, mode: str, tool_surface: str | None = None
) -> str | None:
    """Which field says `baseline` is of another run than this one, or None.

    Its verdicts were given for other cases, another mode or another set of tools: comparing
    with them would excuse failures on evidence about something else. `tool_surface` None is
    not checked (it is known only once the run has set its agent up).
    """
    for field, mine in (("suite", suite), ("mode", mode), ("tool_surface", tool_surface)):
        theirs = getattr(baseline, field)
        if mine is not None and theirs != mine:
            return f'{field} is "{printable(theirs)}", this run\'s is "{printable(mine)}"'
    return None


_MARKED = {
    "regressed": "REGRESSED: passed in the baseline, fails now (gates)",
    "errored": "errored: a run error gates",
    "fixed": "fixed: failed in the baseline, passes now",
    "failing": "FAILING: fails now, and the baseline holds no such failure (gates)",
    "changed": "changed since the baseline: refresh the baseline",
    "new": "new: not in the baseline",
}


def junit_marks(flips: Iterable[CaseFlip]) -> list[Mark | None]:
    """Each case's mark in the JUnit file, in order (`to_junit_xml`'s `marks`): a flipped case
    gets a `system-err` line, and a regression its failure message prefixed."""
    return [
        None
        if case.flip not in _MARKED
        else Mark(
            f"baseline: {_MARKED[case.flip]}",
            "REGRESSED since the baseline: " if case.flip == "regressed" else "",
        )
        for case in flips
    ]


def _flip(old: BaselineCase | None, case: CaseReport) -> Flip:
    """One case against its baseline entry: only the same failure of the same fixture is
    excused (`still failing`); a failure with any other history gates."""
    if case.error is not None:
        return "errored"
    if case.skipped is not None:
        return "skipped since passing" if old is not None and old.verdict == "pass" else "skipped"
    same = old is not None and old.case_hash == case.case_hash
    if not case.passed:
        if same and old is not None and old.verdict == "fail":
            return "still failing"
        return "regressed" if same and old is not None and old.verdict == "pass" else "failing"
    if old is None:
        return "new"
    if not same:
        return "changed"
    return "fixed" if old.verdict == "fail" else "still passing"

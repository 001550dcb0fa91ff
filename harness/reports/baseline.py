"""Baselines: a run's per-case verdicts, kept, and the next run compared with them.

`harness run --write-baseline PATH` records each case's verdict with its `case_hash`, the mode
and the tool surface (schema `harness/baseline/v1`); a run in which a case errored writes none,
since an error is not a verdict. `harness run --baseline PATH` then makes the comparison the
exit status: only a case that passed in the baseline and fails now, with the same id and the
same `case_hash`, gates (or a case that errors now). A case whose fixture changed is reported as
changed, to refresh the baseline, and does not gate; new cases are reported; pass→pass and
fail→fail never gate.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from harness.errors import UsageError
from harness.reports.artifact import write_atomic
from harness.reports.model import CaseReport, SuiteReport

__all__ = [
    "SCHEMA",
    "Baseline",
    "Comparison",
    "compare",
    "read_baseline",
    "write_baseline",
    "write_marked_junit",
]

SCHEMA = "harness/baseline/v1"
"""The `schema` of every baseline file this harness writes and reads."""

Verdict = Literal["pass", "fail", "skipped"]
Flip = Literal[
    "regressed", "fixed", "changed", "new", "still passing", "still failing", "skipped", "errored"
]


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


class CaseFlip(msgspec.Struct, frozen=True, kw_only=True):
    """How one case of this run compares with the baseline."""

    id: str
    name: str
    flip: Flip


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    """This run against a baseline."""

    cases: tuple[CaseFlip, ...]
    surface_changed: bool
    mode_changed: bool

    def of(self, flip: Flip) -> list[CaseFlip]:
        """The cases of one kind, in run order."""
        return [case for case in self.cases if case.flip == flip]

    def exit_code(self) -> int:
        """1 when a case regressed (pass→fail, same fixture) or errors; else 0."""
        return 1 if self.of("regressed") or self.of("errored") else 0

    def render(self) -> str:
        """What the comparison found, one line per kind that occurred."""
        labels = (
            ("regressed", "REGRESSED (passed in the baseline, fails now)"),
            ("errored", "errored (a run error gates)"),
            ("changed", "changed, refresh the baseline (fixture differs; not gated)"),
            ("new", "new (not in the baseline)"),
            ("fixed", "fixed (failed in the baseline, passes now)"),
        )
        lines = [
            f"baseline: {len(found)} {label}: {', '.join(case.name for case in found)}"
            for flip, label in labels
            if (found := self.of(flip))  # type: ignore[arg-type]
        ]
        if self.surface_changed:
            lines.append("baseline: the tool surface differs from the baseline's (not gated)")
        if self.mode_changed:
            lines.append("baseline: the mode differs from the baseline's (not gated)")
        if not lines:
            lines.append("baseline: no case flipped")
        return "\n".join(lines)


def _verdict(case: CaseReport) -> Verdict:
    if case.skipped is not None:
        return "skipped"
    return "pass" if case.passed else "fail"


def write_baseline(report: SuiteReport, path: str) -> str | None:
    """Write the per-case verdicts of `report` to `path`; or why not, when a case errored.

    A run in which a case errored, or that was interrupted, writes no baseline: an error is not
    a verdict to compare with.

    Raises:
        ArtifactError: The file cannot be written.
    """
    if report.errored or report.interrupted is not None:
        why = "was interrupted" if report.interrupted else f"had {report.errored} errored case(s)"
        return f"{path}: baseline not written: the run {why}, and errors are not verdicts"
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
    """The baseline in `path`.

    Raises:
        UsageError: It cannot be read or is not a `harness/baseline/v1` file.
    """
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the baseline: {exc.strerror or exc}") from None
    try:
        baseline = msgspec.json.decode(data, type=Baseline)
    except msgspec.MsgspecError as exc:
        raise UsageError(f"{path}: not a harness baseline: {exc}") from None
    if baseline.schema != SCHEMA:
        raise UsageError(f'{path}: baseline schema is "{baseline.schema}", expected "{SCHEMA}"')
    return baseline


def compare(baseline: Baseline, report: SuiteReport) -> Comparison:
    """How each case of `report` compares with its namesake (by id) in `baseline`."""
    before = {case.id: case for case in baseline.cases}
    flips = []
    for case in report.cases:
        flips.append(
            CaseFlip(id=case.case_id, name=case.name, flip=_flip(before.get(case.case_id), case))
        )
    return Comparison(
        cases=tuple(flips),
        surface_changed=baseline.tool_surface != report.tool_surface,
        mode_changed=baseline.mode != report.mode,
    )


_MARKED = {
    "regressed": "REGRESSED: passed in the baseline, fails now (gates)",
    "fixed": "fixed: failed in the baseline, passes now",
    "changed": "changed since the baseline: refresh the baseline (not gated)",
    "new": "new: not in the baseline",
}


def write_marked_junit(path: str, junit: bytes, baseline: Baseline, report: SuiteReport) -> None:
    """Write `junit` with each flipped case marked: a `system-err` line, and for a regression
    its failure message prefixed, so CI test views show what changed since the baseline."""
    import xml.etree.ElementTree as ET

    flips = {case.name: case.flip for case in compare(baseline, report).cases}
    root = ET.fromstring(junit)
    for testcase in root.iter("testcase"):
        flip = flips.get(testcase.get("name", ""))
        if flip not in _MARKED:
            continue
        note = ET.SubElement(testcase, "system-err")
        note.text = f"baseline: {_MARKED[flip]}"
        failure = testcase.find("failure")
        if flip == "regressed" and failure is not None:
            failure.set("message", f"REGRESSED since the baseline: {failure.get('message', '')}")
    ET.indent(root)
    write_atomic(path, ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")


def _flip(old: BaselineCase | None, case: CaseReport) -> Flip:
    if case.error is not None:
        return "errored"
    if case.skipped is not None:
        return "skipped"
    if old is None:
        return "new"
    if old.case_hash != case.case_hash:
        return "changed"
    if old.verdict == "pass":
        return "still passing" if case.passed else "regressed"
    if old.verdict == "fail" and case.passed:
        return "fixed"
    return "still passing" if case.passed else "still failing"

"""`harness check`: prove, before merging, that every fixture can fail for the right reason.

For each suite: every load rule; empty-run falsifiability; a green replay of each fixture
through the agent (a replay that errors or fails is an error, with its reason); mutation
strength of each passing replay, with the claims its name makes; the balance of positive and
negative cases; and the privacy lint. Errors fail the check (exit 1); warnings are shown and
do not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

from harness.authoring.hints import mutant_hints, negative_hint
from harness.authoring.mutation import strength
from harness.authoring.privacy import PrivacyLint
from harness.errors import FixtureError, SuiteError
from harness.fixtures.admission import never_failing_tools
from harness.fixtures.format import Case
from harness.fixtures.limits import DEFAULT_LIMITS, Limits
from harness.fixtures.reading import read_fixture
from harness.fixtures.suite import fixture_paths, load_cases
from harness.grading.evidence import load_refusals
from harness.grading.expectations import evaluate_expects
from harness.masking import redact
from harness.pipeline.dispatch import play_cases
from harness.pipeline.setup import DEFAULT_SETUP, Setup
from harness.recording import RunRecord
from harness.reports.model import CaseReport

__all__ = ["CheckFinding", "CheckReport", "FixtureStrength", "SuiteBalance", "check_suites"]

Severity = Literal["error", "warning"]


class CheckFinding(msgspec.Struct, frozen=True, kw_only=True):
    """One problem found in a fixture or a suite."""

    severity: Severity
    rule: str
    """load, vacuous, replay, claim, strength, balance, skip, never-fails or privacy.*"""
    file: str
    location: str | None
    message: str


class FixtureStrength(msgspec.Struct, frozen=True, kw_only=True):
    """A fixture's mutation score."""

    file: str
    name: str
    kind: str | None
    killed: int
    total: int
    score: float | None
    """killed / total, or None when the replay does not pass (nothing to mutate)."""
    survivors: tuple[str, ...]
    note: str = ""
    hints: tuple[str, ...] = ()
    """How to make the fixture stronger: per surviving mutant kind, the expectation that
    would kill it (`duplicate call survives: add exact_tool_calls: 1`)."""


class SuiteBalance(msgspec.Struct, frozen=True, kw_only=True):
    """How a suite's cases split between must-happen and must-not-happen."""

    suite: str
    positive: int
    negative: int
    undeclared: int


class CheckReport(msgspec.Struct, frozen=True, kw_only=True):
    """Everything `harness check` found."""

    findings: tuple[CheckFinding, ...]
    strengths: tuple[FixtureStrength, ...]
    balances: tuple[SuiteBalance, ...]

    @property
    def errors(self) -> int:
        """How many findings fail the check."""
        return sum(finding.severity == "error" for finding in self.findings)

    def exit_code(self) -> int:
        """0 when no finding is an error, else 1."""
        return 1 if self.errors else 0


def check_suites(
    directories: Sequence[str],
    *,
    setup: Setup = DEFAULT_SETUP,
    tool_names: Iterable[str] | None = ("echo",),
    privacy: PrivacyLint | None = None,
    min_strength: float | None = None,
    limits: Limits = DEFAULT_LIMITS,
    may_fail: bool = False,
) -> CheckReport:
    """Check every fixture of every suite folder.

    A replay that fails or errors is an error (a warning with `may_fail`, for a capability
    suite): its fixture cannot be measured, and `run` would not pass it either.
    """
    lint = privacy or PrivacyLint()
    findings: list[CheckFinding] = []
    strengths: list[FixtureStrength] = []
    balances: list[SuiteBalance] = []
    for directory in directories:
        try:
            paths = fixture_paths(directory, limits)
        except SuiteError as exc:
            findings.append(_error("load", directory, None, exc.reason))
            continue
        findings.extend(_privacy(paths, lint, limits))
        cases, rejected = load_cases(directory, tool_names, limits)
        if setup.agent_command:
            refused = load_refusals(cases, "agent_command", tool_spans=setup.tool_spans)
            rejected = [*rejected, *refused]
            cases = [case for case in cases if case.source not in {r.path for r in refused}]
        findings.extend(_error("load", p.path, p.location, p.reason) for p in rejected)
        registered = None if tool_names is None else frozenset(tool_names)
        if setup.agent_command and not registered:
            registered = None  # its tools are its own: none declared, nothing to warn against
        # a skipped case is not run, so there is nothing to measure
        runnable = [case for case in cases if case.trace.skip is None]
        replays = dict(zip(map(id, runnable), play_cases(runnable, setup), strict=True))
        for case in cases:
            findings.extend(_warnings(case, registered))
            if case.trace.skip is not None:
                continue
            findings.extend(_vacuous(case))
            findings.extend(_unknown_tools(case, registered))
            measured, found = _strength(case, replays[id(case)], min_strength, may_fail=may_fail)
            strengths.append(measured)
            findings.extend(found)
        balance = _balance(directory, cases)
        balances.append(balance)
        findings.extend(_balance_warnings(directory, balance))
    return CheckReport(
        findings=tuple(findings), strengths=tuple(strengths), balances=tuple(balances)
    )


def _error(rule: str, file: str, location: str | None, message: str) -> CheckFinding:
    """An error finding; its message, which may quote the fixture, is redacted."""
    return CheckFinding(
        severity="error", rule=rule, file=file, location=location, message=redact(message)
    )


def _privacy(paths: Sequence[str], lint: PrivacyLint, limits: Limits) -> list[CheckFinding]:
    found: list[CheckFinding] = []
    for path in paths:
        try:
            document = msgspec.json.decode(read_fixture(path, limits.max_fixture_bytes))
            findings = lint.scan(document)
        except (FixtureError, msgspec.MsgspecError, RecursionError):
            continue  # the load rules report it
        found.extend(  # the lint's messages show a masked secret's length: kept as they are
            CheckFinding(
                severity="error", rule=f.rule, file=path, location=f.location, message=f.message
            )
            for f in findings
        )
    return found


def _warnings(case: Case, registered: frozenset[str] | None) -> list[CheckFinding]:
    found = []
    if case.trace.skip is not None:
        message = f"skipped: {case.trace.skip} (it is not run, and never counts as passed)"
        found.append(_warning("skip", case.source, "$.skip", message))
    if registered is not None:
        found.extend(
            _warning("never-fails", case.source, location, message)
            for location, message in never_failing_tools(case, registered)
        )
    return found


def _warning(rule: str, file: str, location: str | None, message: str) -> CheckFinding:
    """A warning finding; its message, which may quote the fixture, is redacted."""
    return CheckFinding(
        severity="warning", rule=rule, file=file, location=location, message=redact(message)
    )


def _vacuous(case: Case) -> list[CheckFinding]:
    if all(grade.passed for grade in evaluate_expects(case.expects, RunRecord())):
        message = "passes on a run that produced nothing (no response, no calls): it cannot fail"
        hint = negative_hint(case) or (
            "add what the agent must do (response_contains, tools_used or exact_tool_calls)"
        )
        message += f"; hint: {hint}"
        return [_error("vacuous", case.source, "$.expects", message)]
    return []


def _unknown_tools(case: Case, registered: frozenset[str] | None) -> list[CheckFinding]:
    """A warning for each scripted call to a tool the agent's registry does not hold.

    The call replays (the agent is told `Unknown tool: NAME`), so the case may still pass:
    a typo in a tool name must not go by unseen.
    """
    if registered is None:
        return []
    found = []
    for t, turn in enumerate(case.trace.turns):
        for s, step in enumerate(turn.steps):
            for c, call in enumerate(getattr(step.response, "tool_calls", ())):
                if call.name in registered:
                    continue
                known = ", ".join(sorted(registered)) or "none"
                message = (
                    f"calls {call.name!r}, which is not a registered tool (registered: {known}); "
                    f"the agent gets 'Unknown tool: {call.name}'"
                )
                where = f"$.turns[{t}].steps[{s}].response.tool_calls[{c}].name"
                found.append(
                    CheckFinding(
                        severity="warning",
                        rule="unknown-tool",
                        file=case.source,
                        location=where,
                        message=message,
                    )
                )
    return found


def _strength(
    case: Case, report: CaseReport, min_strength: float | None, *, may_fail: bool
) -> tuple[FixtureStrength, list[CheckFinding]]:
    row = FixtureStrength(
        file=case.source,
        name=case.name,
        kind=case.trace.kind,
        killed=0,
        total=0,
        score=None,
        survivors=(),
    )
    if not report.passed:
        if report.error:
            why, reason = "it errors", f"the replay errors: {report.error}"
        else:
            failed = next(grade for grade in report.grades if not grade.passed)
            why, reason = "its checks fail", f"the replay fails: {failed.check}: {failed.detail}"
        note = f"not mutated: the replay does not pass ({why})"
        hint = "make the replay pass (see `harness run`): then its mutants can be measured"
        severity: Severity = "warning" if may_fail else "error"
        found = [
            CheckFinding(
                severity=severity, rule="replay", file=case.source, location=None, message=reason
            )
        ]
        return msgspec.structs.replace(row, note=note, hints=(hint,)), found
    measured = strength(case, report.record)
    if measured.total == 0:
        note = "no mutant: nothing was replayed (no tool call, no final response)"
        hint = "nothing to mutate: script the call or the reply the case is about"
        return msgspec.structs.replace(row, note=note, hints=(hint,)), []
    findings = [
        _error(
            "claim",
            case.source,
            "$.expects",
            f"the name claims {claim.claim}, but "
            + (f"these mutants survive: {', '.join(claim.survivors)}; " if claim.survivors else "")
            + claim.fix,
        )
        for claim in measured.claims
    ]
    if min_strength is not None and measured.score < min_strength:
        message = (
            f"mutation strength {measured.score:.2f} is below --min-strength {min_strength:.2f} "
            f"({measured.killed}/{measured.total} killed)"
        )
        findings.append(_error("strength", case.source, None, message))
    row = msgspec.structs.replace(
        row,
        killed=measured.killed,
        total=measured.total,
        score=measured.score,
        survivors=measured.survivors,
        hints=mutant_hints(measured.survivors, report.record, case),
    )
    return row, findings


def _balance(directory: str, cases: Sequence[Case]) -> SuiteBalance:
    kinds = [case.trace.kind for case in cases]
    return SuiteBalance(
        suite=directory,
        positive=kinds.count("positive"),
        negative=kinds.count("negative"),
        undeclared=kinds.count(None),
    )


def _balance_warnings(directory: str, balance: SuiteBalance) -> list[CheckFinding]:
    message = None
    if balance.undeclared:
        message = f'{balance.undeclared} case(s) declare no "kind" (positive or negative)'
    elif not balance.positive or not balance.negative:
        side = "positive" if balance.positive else "negative"
        message = (
            f"the suite is one-sided: every case is {side}; "
            "one-sided suites reward one-sided behaviour"
        )
    if message is None:
        return []
    return [
        CheckFinding(
            severity="warning", rule="balance", file=directory, location=None, message=message
        )
    ]

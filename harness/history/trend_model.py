"""The trend of a suite over its recorded runs: pass rates, a status grid, flips and flakes."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

import msgspec

from harness.history.store import CaseRow, RunRow

__all__ = ["CaseTrend", "RunPoint", "Status", "Trend", "compute_trend"]

Status = Literal["pass", "fail", "error"]


class RunPoint(msgspec.Struct, frozen=True, kw_only=True):
    """One run on the pass-rate line."""

    run_id: str
    number: int = 0
    """The run's number in the suite's whole history (1 is its first recorded run)."""
    started_at: str
    git_commit: str | None
    passed: int
    total: int
    pass_rate: float
    """passed / total, from 0.0 to 1.0."""


class CaseTrend(msgspec.Struct, frozen=True, kw_only=True):
    """One case's status in each run of the window (None: not in that run)."""

    name: str
    statuses: tuple[Status | None, ...]
    flips: int
    """How many times the case went from passing to not passing or back."""


class Trend(msgspec.Struct, frozen=True, kw_only=True):
    """A suite's trend over its last runs, oldest first."""

    suite: str
    runs: tuple[RunPoint, ...]
    cases: tuple[CaseTrend, ...]
    newly_passing: tuple[str, ...]
    """Cases that pass in the latest run and did not in the one before."""
    newly_failing: tuple[str, ...]
    """Cases that do not pass in the latest run and did in the one before."""
    flaky: tuple[str, ...]
    """Cases that flipped more than once in the window."""


def compute_trend(
    suite: str, runs: Sequence[RunRow], results: Sequence[CaseRow], first_number: int = 1
) -> Trend:
    """The trend of `suite` over `runs` (oldest first) and their case results.

    `first_number` is the history's number of the oldest run shown: `--last 3` of 10 runs shows
    runs #8 to #10, never renumbered from 1.
    """
    column = {run.run_id: index for index, run in enumerate(runs)}
    grid: dict[str, list[Status | None]] = {}
    for result in results:
        if result.run_id not in column:
            continue
        row = grid.setdefault(result.name, [None] * len(runs))
        row[column[result.run_id]] = _status(result)
    cases = tuple(
        CaseTrend(name=name, statuses=tuple(statuses), flips=_flips(statuses))
        for name, statuses in sorted(grid.items())
    )
    newly_passing, newly_failing = _changes(cases)
    return Trend(
        suite=suite,
        runs=tuple(_point(run, number) for number, run in enumerate(runs, first_number)),
        cases=cases,
        newly_passing=newly_passing,
        newly_failing=newly_failing,
        flaky=tuple(case.name for case in cases if case.flips > 1),
    )


def _status(result: CaseRow) -> Status:
    if result.error is not None:
        return "error"
    return "pass" if result.passed else "fail"


def _point(run: RunRow, number: int) -> RunPoint:
    return RunPoint(
        run_id=run.run_id,
        number=number,
        started_at=run.started_at,
        git_commit=run.git_commit,
        passed=run.passed,
        total=run.total,
        pass_rate=run.passed / run.total if run.total else 0.0,
    )


def _flips(statuses: Sequence[Status | None]) -> int:
    seen = [status == "pass" for status in statuses if status is not None]
    return sum(before != after for before, after in itertools.pairwise(seen))


def _changes(cases: Sequence[CaseTrend]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    passing: list[str] = []
    failing: list[str] = []
    for case in cases:
        if len(case.statuses) < 2 or None in case.statuses[-2:]:
            continue
        before, now = case.statuses[-2] == "pass", case.statuses[-1] == "pass"
        if now and not before:
            passing.append(case.name)
        elif before and not now:
            failing.append(case.name)
    return tuple(passing), tuple(failing)

"""The run's steps: `decide` gives the exit status from what ran, and nothing else does."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import UsageError
from harness.fixtures.shard import Shard
from harness.fixtures.suite import load_suite
from harness.grading.result import GradeResult
from harness.pipeline.setup import DEFAULT_SETUP
from harness.pipeline.workflow import Ran, RunOptions, RunWriters, decide, play, write
from harness.reports.baseline import Baseline, CaseFlip, Comparison, Flip
from harness.reports.document import Counts
from harness.reports.model import CaseReport, SuiteReport

REPO = Path(__file__).resolve().parents[2]


def ran(
    *,
    expected: int = 3,
    total: int = 3,
    passed: int = 3,
    skipped: int = 0,
    interrupted: str | None = None,
    stopped_early: bool = False,
    shard: Shard | None = None,
) -> Ran:
    counts = Counts(passed=passed, errored=0, total=total, skipped=skipped)
    return Ran(
        expected=expected,
        counts=counts,
        interrupted=interrupted,
        stopped_early=stopped_early,
        shard=shard,
    )


def comparison(flip: Flip) -> Comparison:
    """A comparison of one case that `flip`ped (`regressed` gates, `fixed` does not)."""
    return Comparison(cases=(CaseFlip(id="a", name="a", flip=flip),))


@pytest.mark.parametrize(
    ("what", "status"),
    [
        (ran(), 0),
        (ran(passed=2), 1),
        (ran(total=2, passed=2), 1),  # a case the run set out to play never finished
        (ran(expected=0, total=0, passed=0), 1),  # a run of nothing never passes
        (ran(expected=0, total=0, passed=0, shard=Shard(index=2, total=2)), 0),  # empty shard
        (ran(passed=0, skipped=3), 1),  # only skipped cases proved nothing
        (ran(passed=2, skipped=1), 0),
        (ran(total=1, passed=0, stopped_early=True), 1),
        (ran(total=1, passed=1, interrupted="SIGINT"), 130),
        (ran(total=0, passed=0, interrupted="SIGTERM"), 143),
    ],
    ids=[
        "all-passed",
        "one-failed",
        "one-missing",
        "no-case",
        "empty-shard",
        "all-skipped",
        "some-skipped",
        "stopped-early",
        "sigint",
        "sigterm",
    ],
)
def test_decide_without_a_baseline(what: Ran, status: int) -> None:
    """0 only when every case ran and passed; a signal's 128 + its number."""
    assert decide(what) == status


def test_a_baseline_comparison_decides_a_finished_run() -> None:
    """Every case finished: the comparison's status, whatever the cases' verdicts."""
    assert decide(ran(passed=2), comparison("fixed")) == 0
    assert decide(ran(), comparison("regressed")) == 1


def test_a_baseline_comparison_never_decides_an_unfinished_run() -> None:
    """Interrupted or short of cases, the run's own status stands."""
    assert decide(ran(total=2, passed=2), comparison("fixed")) == 1
    assert decide(ran(interrupted="SIGINT"), comparison("fixed")) == 130


def test_the_steps_play_write_and_decide_from_what_they_counted(tmp_path: Path) -> None:
    """A suite played into the writers, written, decided: the status of its counted cases."""
    suite = load_suite(str(REPO / "evals" / "capability"), None)
    options = RunOptions(json=str(tmp_path / "r.json"), junit=str(tmp_path / "r.xml"))
    writers = RunWriters(options)
    try:
        head = play(suite, DEFAULT_SETUP, options, writers.add)
        written = write(writers, head, expected=suite.count)
    finally:
        writers.discard()
    assert written.ran.counts.total == suite.count == len(written.shown.cases)
    assert written.ran.complete
    assert (tmp_path / "r.json").is_file()
    assert (tmp_path / "r.xml").is_file()
    passed = all(case.passed for case in written.shown.cases)
    assert decide(written.ran) == (0 if passed else 1)


def test_write_decides_nothing_from_the_files(tmp_path: Path) -> None:
    """A report edited on disk after the write does not change the status."""
    case = CaseReport(
        name="a", source="a.json", grades=(GradeResult(check="x", passed=False, detail="no"),)
    )
    options = RunOptions(json=str(tmp_path / "r.json"))
    writers = RunWriters(options)
    writers.add(case)
    head = SuiteReport(suite="s", directory="s", mode="replay", cases=())
    written = write(writers, head, expected=1)
    writers.discard()
    path = tmp_path / "r.json"
    path.write_bytes(path.read_bytes().replace(b'"all_passed": false', b'"all_passed": true'))
    assert decide(written.ran) == 1


def test_a_gating_baseline_of_another_surface_is_refused_after_the_reports(
    tmp_path: Path,
) -> None:
    """The JSON and JUnit files are written, then the foreign baseline is refused."""
    baseline = Baseline(
        schema="harness/baseline/v1",
        suite="s",
        mode="replay",
        tool_surface="sha256:other",
        cases=(),
    )
    options = RunOptions(
        json=str(tmp_path / "r.json"), junit=str(tmp_path / "r.xml"), baseline="b.json"
    )
    writers = RunWriters(options)
    head = SuiteReport(suite="s", directory="s", mode="replay", cases=(), tool_surface="sha256:x")
    with pytest.raises(UsageError, match=r"b\.json: a baseline of another run"):
        write(writers, head, expected=0, baseline=baseline)
    writers.discard()
    assert (tmp_path / "r.json").is_file()
    assert (tmp_path / "r.xml").is_file()

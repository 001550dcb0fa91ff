"""The gate: the regression suite replays green, and every case can fail."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from harness.config import DEFAULT_SUITE_DIR, load_config
from harness.fixtures.format import Case
from harness.fixtures.suite import load_suite
from harness.grading.expectations import evaluate_expects
from harness.messages import RecordedCall
from harness.pipeline.case import run_case
from harness.pipeline.dispatch import run_suite
from harness.recording import RunRecord

REPO = Path(__file__).resolve().parent.parent
GATED = str(REPO / DEFAULT_SUITE_DIR)
GATED_CASES = load_suite(GATED).cases


def test_regression_suite_replays_green() -> None:
    """The gated suite passes through the same path as `harness run`."""
    report = run_suite(load_suite(GATED))
    failures = {
        case.name: case.error or case.failed_grades for case in report.cases if not case.passed
    }
    assert failures == {}
    assert report.all_passed
    assert report.all_passed
    assert report.total >= 8


@pytest.mark.parametrize("case", GATED_CASES, ids=lambda case: case.name)
def test_no_gated_fixture_passes_on_a_run_that_produced_nothing(case: Case) -> None:
    """Every gated fixture fails against an empty run: no response, no calls, no tokens."""
    grades = evaluate_expects(case.expects, RunRecord())
    assert grades, "a fixture must yield at least one grade"
    assert not all(grade.passed for grade in grades)


def test_missing_argument_fixture_fails_when_the_dispatch_is_silently_repaired() -> None:
    """If the bad argument key were fixed up before dispatch, the fixture must go red."""
    case = next(c for c in GATED_CASES if c.name == "missing-tool-argument-continues-loop")
    real = run_case(case).record
    repaired = msgspec.structs.replace(
        real,
        tool_calls=(
            RecordedCall(
                name="echo", arguments='{"message":"hello"}', result="hello", success=True
            ),
        ),
    )
    assert all(grade.passed for grade in evaluate_expects(case.expects, real))
    failed = [g.check for g in evaluate_expects(case.expects, repaired) if not g.passed]
    assert 'tool_arguments_contain("echo"[0], "\\"wrong_key\\":\\"hello\\"")' in failed
    assert 'tool_results_contain("echo"[0], "(empty)")' in failed


def test_gated_suite_directory_matches_the_configured_default() -> None:
    """What CI gates on is what `harness run` replays by default, and it exists."""
    config = load_config(str(REPO / "pyproject.toml"))
    assert DEFAULT_SUITE_DIR == "evals/regression"
    assert os.path.samefile(config.suite_dir, GATED)
    assert os.path.isdir(GATED)
    assert config.mode == "replay"


@pytest.mark.parametrize(
    "name",
    [
        "smoke-greeting",
        "no-tools-on-greeting",
        "single-tool-echo",
        "multi-tool-chain",
        "multi-turn-echo-tool-loop",
        "multi-turn-response-ordering",
        "unicode-tool-arguments-roundtrip",
        "missing-tool-argument-continues-loop",
    ],
)
def test_the_seed_cases_are_gated(name: str) -> None:
    """The eight behaviours the project was founded on stay in the gate."""
    assert name in {case.name for case in GATED_CASES}

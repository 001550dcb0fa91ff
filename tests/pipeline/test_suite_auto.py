"""`run_suite(jobs=AUTO)`: serial where workers cannot win, and never a changed verdict."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import harness._parallel as parallel
from harness.fixtures.suite import Suite, load_suite
from harness.pipeline import dispatch as suite_module
from harness.pipeline.dispatch import AUTO, PROBE_CASES, run_suite, worth_workers
from harness.pipeline.setup import Setup
from tests.agents import upper_tools
from tests.builders import echo_trace


@pytest.fixture
def small_suite(tmp_path: Path) -> Suite:
    for index in range(8):
        trace = echo_trace()
        trace["model_name"] = f"case-{index}"
        if index % 3 == 0:
            trace["expects"] = {"response_contains": ["never said"]}
        (tmp_path / f"case_{index}.json").write_text(json.dumps(trace), encoding="utf-8")
    return load_suite(str(tmp_path), None)


@pytest.fixture
def worker_items(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many cases each call to the worker pool was handed (the real pool still runs)."""
    calls: list[int] = []
    real = parallel.run_in_workers

    def spy(task: Callable[..., Any], items: Sequence[Any], *args: Any, **kwargs: Any) -> Any:
        calls.append(len(items))
        return real(task, items, *args, **kwargs)

    monkeypatch.setattr(parallel, "run_in_workers", spy)
    return calls


def _verdicts(report: Any) -> list[tuple[str, bool, str | None]]:
    return [(case.name, case.passed, case.error) for case in report.cases]


@pytest.mark.parametrize("cores", [1, 2, 8])
def test_auto_runs_the_builtin_loop_here_on_a_small_suite(
    small_suite: Suite, worker_items: list[int], monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    """The built-in loop (microseconds a case) under PARALLEL_MIN cases: no workers."""
    monkeypatch.setattr(parallel, "cpu_count", lambda: cores)
    report = run_suite(small_suite, jobs=AUTO)
    assert worker_items == []
    assert _verdicts(report) == _verdicts(run_suite(small_suite))


def test_auto_never_uses_workers_on_one_core(
    small_suite: Suite, worker_items: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One core: workers could only take turns with the parent."""
    monkeypatch.setattr(parallel, "cpu_count", lambda: 1)
    monkeypatch.setattr(suite_module, "_supervised", lambda *args: False)
    monkeypatch.setattr(suite_module, "worth_workers", lambda *args: True)
    run_suite(small_suite, setup=Setup(tools=upper_tools), jobs=AUTO)
    assert worker_items == []


@pytest.mark.parametrize("worth", [True, False])
def test_auto_probes_a_project_agent_then_decides(
    small_suite: Suite, worker_items: list[int], monkeypatch: pytest.MonkeyPatch, worth: bool
) -> None:
    """A project's tools where supervision is not to be had: the first cases are timed here,
    the rest go to workers if worth it; the verdicts are the serial run's either way."""
    monkeypatch.setattr(suite_module, "_supervised", lambda *args: False)
    monkeypatch.setattr(parallel, "cpu_count", lambda: 2)
    monkeypatch.setattr(suite_module, "worth_workers", lambda *args: worth)
    setup = Setup(tools=upper_tools)
    report = run_suite(small_suite, setup=setup, jobs=AUTO)
    assert worker_items == ([8 - PROBE_CASES] if worth else [])
    assert _verdicts(report) == _verdicts(run_suite(small_suite, setup=setup))


def test_workers_are_worth_it_only_when_they_save_their_start() -> None:
    """Slow cases in numbers win; microsecond cases or a handful do not; one job never."""
    assert worth_workers(0.020, 200, 2)  # 200 cases of a 20 ms agent: 2 s of work
    assert not worth_workers(0.000_05, 2_000, 2)  # microsecond cases: 0.1 s serially
    assert not worth_workers(0.020, 5, 2)
    assert not worth_workers(1.0, 100, 1)


@pytest.mark.parametrize("cores", [2, 8])
def test_auto_shares_a_large_builtin_suite_among_the_cores(
    small_suite: Suite, worker_items: list[int], monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    """From PARALLEL_MIN cases the built-in loop gets one worker per core, two cores included
    (workers win there: about 0.6x the serial time at 10k cases); the verdicts are the same."""
    monkeypatch.setattr(parallel, "cpu_count", lambda: cores)
    monkeypatch.setattr(suite_module, "PARALLEL_MIN", 4)
    report = run_suite(small_suite, jobs=AUTO)
    assert worker_items == [len(small_suite.cases)]
    assert _verdicts(report) == _verdicts(run_suite(small_suite))

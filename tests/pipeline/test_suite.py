"""`run_suite`'s hook: `on_case` sees each case as it comes in; `stop` ends the run there."""

from __future__ import annotations

import pytest

from harness.fixtures.suite import load_suite
from harness.pipeline.dispatch import run_suite
from harness.pipeline.setup import Setup
from harness.reports.model import CaseReport
from tests.agents import sync_agent
from tests.builders import echo_trace
from tests.conftest import WriteFixture


@pytest.mark.parametrize("jobs", [1, 2])
def test_on_case_sees_every_case_in_order_and_stop_ends_the_run(
    write_fixture: WriteFixture, jobs: int
) -> None:
    """Serial and in workers: every report reaches on_case; stop cuts the rest and says so."""
    for index, failing in enumerate([False, False, True, False, True]):
        expects = {"response_contains": ["nope"]} if failing else echo_trace()["expects"]
        write_fixture(f"{index}.json", echo_trace(model_name=f"case-{index}", expects=expects))
    suite = load_suite(str(write_fixture("0.json", echo_trace(model_name="case-0")).parent))
    setup = Setup(agent_factory=sync_agent)  # the project's own agent: workers when jobs > 1
    seen: list[CaseReport] = []
    report = run_suite(suite, setup=setup, jobs=jobs, on_case=seen.append)
    assert [case.name for case in seen] == [f"case-{i}" for i in range(5)]
    assert seen == list(report.cases)
    assert report.stopped_early is False
    seen.clear()
    report = run_suite(
        suite, setup=setup, jobs=jobs, on_case=seen.append, stop=lambda c: not c.passed
    )
    assert [case.name for case in report.cases] == ["case-0", "case-1", "case-2"]
    assert seen == list(report.cases)
    assert report.stopped_early is True
    last = run_suite(suite, setup=setup, jobs=jobs, stop=lambda c: c.name == "case-4")
    assert (last.total, last.stopped_early) == (5, False)  # stopping after the last is no stop

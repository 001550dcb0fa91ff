"""Running a suite: every case in order, here or in worker processes, into a `SuiteReport`."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Sequence

from harness._parallel import gc_paused
from harness.fixtures.format import Case
from harness.fixtures.suite import PARALLEL_MIN, Suite
from harness.pipeline.case import run_case
from harness.pipeline.interrupt import signal_name
from harness.pipeline.setup import DEFAULT_SETUP, Setup
from harness.reports.model import CaseReport, SuiteReport

__all__ = ["CRASH_MESSAGE", "run_suite"]

CRASH_MESSAGE = "the worker process running this case crashed (it exited without a result)"
"""The error of a case whose worker process died, even with the case run alone."""


def run_suite(
    suite: Suite,
    *,
    mode: str = "replay",
    setup: Setup = DEFAULT_SETUP,
    jobs: int = 1,
    on_case: Callable[[CaseReport], None] | None = None,
    stop: Callable[[CaseReport], bool] | None = None,
) -> SuiteReport:
    """Run every case of `suite` in order; a case that errors never stops the others.

    With `jobs` > 1 the cases run in that many worker processes; the report is the same. The
    built-in loop replays a suite of fewer than `PARALLEL_MIN` cases here even so: workers would
    cost more than they save. The project's own agent or tools always run in supervised
    workers (`jobs` of them, at least one), so an exit or a crash errors only its own case.

    Args:
        suite: The cases to run.
        mode: What the report says was run (`replay`).
        setup: The agent, tools and limits every case runs with.
        jobs: Worker processes.
        on_case: Called in this process with each case's report as it comes in (progress,
            verbose lines); with `jobs`, as the workers hand the cases back.
        stop: Asked after `on_case` whether to stop the run there (`--exitfirst`); the cases
            not yet run are left out and the report is marked `stopped_early`.
    """
    started_at = time.time()
    started = time.perf_counter()
    finished: list[CaseReport] = []
    interrupted = None
    stopped_early = False
    with gc_paused():
        if _supervised(suite, setup):
            from harness.pipeline.supervisor import run_supervised

            reports: Iterator[CaseReport] = run_supervised(suite.cases, setup, jobs)
        elif _in_workers(suite, setup, jobs):
            from harness._parallel import run_in_workers

            reports = run_in_workers(
                run_case,
                suite.cases,
                setup,
                min(jobs, len(suite.cases)),
                item_type=Case,
                result_type=CaseReport,
                crashed=functools.partial(_crashed, suite.cases),
            )
        else:
            reports = (run_case(case, setup) for case in suite.cases)
        try:
            if on_case is None and stop is None:
                finished.extend(reports)
            else:
                stopped_early = _watched(reports, finished, on_case, stop)
        except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: keep what finished
            interrupted = signal_name(exc)
    cases = tuple(finished)
    return SuiteReport(
        suite=suite.name,
        directory=suite.directory,
        mode=mode,
        cases=cases,
        started_at=_iso_utc(started_at),
        duration=time.perf_counter() - started,
        shard=suite.shard,
        suite_total=suite.total,
        interrupted=interrupted,
        selection=suite.selection,
        stopped_early=stopped_early and len(cases) < len(suite.cases),
    )


def _watched(
    reports: Iterator[CaseReport],
    finished: list[CaseReport],
    on_case: Callable[[CaseReport], None] | None,
    stop: Callable[[CaseReport], bool] | None,
) -> bool:
    """Collect `reports` into `finished`, telling `on_case` of each; True if `stop` said so."""
    for report in reports:
        finished.append(report)
        if on_case is not None:
            on_case(report)
        if stop is not None and stop(report):
            close = getattr(reports, "close", None)
            if close is not None:
                close()  # workers: the chunks not yet started are cancelled
            return True
    return False


def _supervised(suite: Suite, setup: Setup) -> bool:
    """Whether the project's own code runs the cases, in supervised workers."""
    if not setup.can_hang or not suite.cases:
        return False
    from harness.pipeline.supervisor import can_supervise

    return can_supervise()


def _in_workers(suite: Suite, setup: Setup, jobs: int) -> bool:
    """Whether to replay in worker processes: asked for, and worth starting them."""
    if jobs < 2 or len(suite.cases) < 2:
        return False
    return setup.can_hang or len(suite.cases) >= PARALLEL_MIN


def _crashed(cases: Sequence[Case], index: int) -> CaseReport:
    """The report of the case at `index`, whose worker process died while running it."""
    case = cases[index]
    return CaseReport(name=case.name, source=case.source, error=CRASH_MESSAGE)


def _iso_utc(seconds: float) -> str:
    """`2026-01-02T03:04:05.678Z`, without importing datetime for it."""
    millis = int(seconds * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"

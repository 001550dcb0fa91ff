"""Running a suite: every case in order, here or in worker processes, into a `SuiteReport`."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Sequence

from harness.fixtures.format import Case
from harness.fixtures.identity import case_hash, case_id
from harness.fixtures.suite import PARALLEL_MIN, Suite
from harness.pipeline.case import run_case
from harness.pipeline.interrupt import signal_name
from harness.pipeline.setup import DEFAULT_SETUP, Setup, tool_surface
from harness.reports.model import CaseReport, SuiteReport
from harness.text import printable

__all__ = [
    "AUTO",
    "CRASH_MESSAGE",
    "PROBE_CASES",
    "WORKER_START_S",
    "play_cases",
    "run_suite",
    "worth_workers",
]

AUTO = 0
"""`jobs` for `--jobs auto`: workers only where they can win (see `run_suite`)."""

PROBE_CASES = 3
"""Cases of a project's agent timed in this process before `auto` decides on workers."""

WORKER_START_S = 0.15
"""What starting workers and bringing their results back costs a run, with room (`nox -s bench`
measures it)."""

CRASH_MESSAGE = "the worker process running this case crashed (it exited without a result)"
"""The error of a case whose worker process died, even with the case run alone."""


def run_suite(
    suite: Suite,
    *,
    mode: str = "replay",
    setup: Setup = DEFAULT_SETUP,
    jobs: int = 1,
    on_case: Callable[[CaseReport], object] | None = None,
    stop: Callable[[CaseReport], bool] | None = None,
    keep_cases: bool = True,
) -> SuiteReport:
    """Run every case of `suite` in order; a case that errors never stops the others.

    With `jobs` > 1 the cases run in that many worker processes; the report is the same. The
    built-in loop replays a suite of fewer than `PARALLEL_MIN` cases here even so: workers would
    cost more than they save. The project's own agent or tools always run in supervised
    workers (`jobs` of them, at least one), so an exit or a crash errors only its own case.

    `jobs=AUTO` runs here where workers cannot win: fewer than two cores, or the built-in loop
    under `PARALLEL_MIN` cases. The built-in loop on a larger suite gets one worker per core
    (`nox -s bench` measures what that saves). A project's agent or tools, which run in supervised
    workers anyway, get one per core. Where supervision is not to be had, their first
    `PROBE_CASES` cases are timed here and the rest go to one worker per core when that saves
    more than starting them costs (`worth_workers`).

    Args:
        suite: The cases to run.
        mode: What the report says was run (`replay`).
        setup: The agent, tools and limits every case runs with.
        jobs: Worker processes.
        on_case: Called in this process with each case's report as it comes in (progress,
            verbose lines); with `jobs`, as the workers hand the cases back.
        stop: Asked after `on_case` whether to stop the run there (`--exitfirst`); the cases
            not yet run are left out and the report is marked `stopped_early`.
        keep_cases: False leaves the cases out of the returned report, which then only says
            how the run went: with `on_case` streaming them, memory stays flat in the suite's
            size.
    """
    started_at = time.time()
    started = time.perf_counter()
    finished: list[CaseReport] = []
    interrupted = None
    stopped_early, ran = False, 0
    supervised = _supervised(suite, setup)
    if not supervised and suite.count:  # no fork to keep the project's code out of here
        setup = setup.loaded()
    if supervised:
        from harness._parallel import cpu_count
        from harness.pipeline.supervisor import run_supervised

        workers = max(cpu_count(), 1) if jobs == AUTO else jobs
        reports: Iterator[CaseReport] = run_supervised(suite.cases, setup, workers)
    elif jobs == AUTO:
        reports = _auto(suite.cases, setup)
    elif _in_workers(suite, setup, jobs):
        reports = _workers(suite.cases, setup, jobs)
    else:
        reports = (run_case(case, setup) for case in suite.cases)
    try:
        if on_case is None and stop is None and keep_cases:
            finished.extend(reports)
        else:
            stopped_early, ran = _watched(reports, finished, on_case, stop, keep_cases)
    except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: keep what finished
        interrupted = signal_name(exc)
    cases = tuple(finished)
    if keep_cases:
        ran = len(cases)
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
        stopped_early=stopped_early and ran < suite.count,
        tool_surface=tool_surface(setup),
    )


def play_cases(cases: Sequence[Case], setup: Setup = DEFAULT_SETUP) -> Iterator[CaseReport]:
    """Each case's report, in order: the project's code in a supervised worker, as in
    `run_suite`, so nothing it does ends the caller's process."""
    if setup.runs_project_code and cases:
        from harness.pipeline.supervisor import can_supervise, run_supervised

        if can_supervise():
            yield from run_supervised(cases, setup, 1)
            return
        setup = setup.loaded()
    for case in cases:
        yield run_case(case, setup)


def _watched(
    reports: Iterator[CaseReport],
    finished: list[CaseReport],
    on_case: Callable[[CaseReport], object] | None,
    stop: Callable[[CaseReport], bool] | None,
    keep: bool,
) -> tuple[bool, int]:
    """Collect `reports` into `finished` (if `keep`), telling `on_case` of each: whether `stop`
    said to stop, and how many cases ran."""
    ran = 0
    for report in reports:
        ran += 1
        if keep:
            finished.append(report)
        if on_case is not None:
            on_case(report)
        if stop is not None and stop(report):
            close = getattr(reports, "close", None)
            if close is not None:
                close()  # workers: the chunks not yet started are cancelled
            return True, ran
    return False, ran


def _workers(cases: Sequence[Case], setup: Setup, jobs: int) -> Iterator[CaseReport]:
    from harness._parallel import run_in_workers

    return run_in_workers(
        run_case,
        cases,
        setup,
        min(jobs, len(cases)),
        item_type=Case,
        result_type=CaseReport,
        crashed=functools.partial(_crashed, cases),
        describe=lambda index: printable(f"case {cases[index].name} ({cases[index].source})"),
    )


def _auto(cases: Sequence[Case], setup: Setup) -> Iterator[CaseReport]:
    """`--jobs auto`: each case's report, in order, here or in workers where they win."""
    from harness._parallel import cpu_count

    cores = cpu_count()
    if cores < 2 or len(cases) < 2:
        yield from (run_case(case, setup) for case in cases)
        return
    if not setup.runs_project_code:  # the built-in loop: cheap cases
        if len(cases) >= PARALLEL_MIN:
            yield from _workers(cases, setup, cores)
        else:
            yield from (run_case(case, setup) for case in cases)
        return
    started = time.perf_counter()
    probed = cases[:PROBE_CASES]
    for case in probed:
        yield run_case(case, setup)
    rest = cases[len(probed) :]
    mean = (time.perf_counter() - started) / len(probed)
    if rest and worth_workers(mean, len(rest), cores):
        yield from _workers(rest, setup, cores)
    else:
        yield from (run_case(case, setup) for case in rest)


def worth_workers(case_s: float, cases: int, jobs: int) -> bool:
    """Whether `jobs` workers save more than they cost on `cases` cases of `case_s` each.

    Serially they take `case_s * cases`; in workers about that over `jobs`, plus the start-up
    and transfer of `WORKER_START_S`.
    """
    serial = case_s * cases
    return jobs >= 2 and serial - serial / jobs > WORKER_START_S


def _supervised(suite: Suite, setup: Setup) -> bool:
    """Whether the project's own code runs the cases, in supervised workers."""
    if not setup.runs_project_code or not suite.count:
        return False
    from harness.pipeline.supervisor import can_supervise

    return can_supervise()


def _in_workers(suite: Suite, setup: Setup, jobs: int) -> bool:
    """Whether to replay in worker processes: asked for, and worth starting them."""
    if jobs < 2 or suite.count < 2:
        return False
    return setup.runs_project_code or suite.count >= PARALLEL_MIN


def _crashed(cases: Sequence[Case], index: int) -> CaseReport:
    """The report of the case at `index`, whose worker process died while running it."""
    case = cases[index]
    return CaseReport(
        name=case.name,
        source=case.source,
        error=CRASH_MESSAGE,
        case_id=case_id(case),
        case_hash=case_hash(case.trace),
    )


def _iso_utc(seconds: float) -> str:
    """`2026-01-02T03:04:05.678Z`, without importing datetime for it."""
    millis = int(seconds * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"

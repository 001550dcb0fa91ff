"""A run, step by step: set up, load, select, play, grade, write, decide.

`harness run` reads the config and sets up the agent (`setup.setup_from`), then:

- `load` reads the suite's fixtures, each admitted against the agent's tools and wire;
- the command line selects the cases (paths, `-k`, `--lf`, `--shard`);
- `play` runs every case (each graded as it finishes, in `run_suite`) and feeds it to the
  run's writers (`RunWriters`) as it finishes;
- `write` closes them: the JSON report, the JUnit file (marked with the baseline's flips),
  the HTML page and the baseline, once the comparison with the gating baseline is made;
- `decide` gives the exit status from what ran.

Nothing here reads a report back: the verdict is made of the cases as they were counted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from harness._parallel import cpu_count
from harness.errors import UsageError
from harness.fixtures.shard import Shard
from harness.fixtures.suite import load_suite
from harness.pipeline.dispatch import AUTO, run_suite
from harness.pipeline.interrupt import exit_status, hold, release, stop_on_sigterm
from harness.reports.document import Counts
from harness.reports.model import CaseReport, SuiteReport, passes
from harness.reports.writers import CaseCounts, JsonWriter, JunitWriter, TableWriter, Writer
from harness.text import complain

if TYPE_CHECKING:
    from harness.config import Config
    from harness.errors import FixtureError
    from harness.fixtures.format import Case
    from harness.fixtures.suite import Screen, Suite
    from harness.pipeline.setup import Setup
    from harness.reports.baseline import Baseline, Comparison

__all__ = ["Ran", "RunOptions", "RunWriters", "Written", "decide", "load", "play", "write"]


class RunOptions(msgspec.Struct, frozen=True, kw_only=True):
    """What a run was asked for beyond its cases and its setup: how it plays, what it writes."""

    mode: str = "replay"
    """What the reports say was run."""
    jobs: int = 1
    """Worker processes (`harness._parallel.AUTO` for one per core)."""
    exitfirst: bool = False
    """Stop at the first failed or errored case (`-x`)."""
    output_format: str = "table"
    """What stdout shows: `table` or `json`."""
    json: str | None = None
    """Where the JSON report goes."""
    junit: str | None = None
    """Where the JUnit XML goes."""
    junit_flavor: str = "full"
    """`full` or `strict`."""
    html: str | None = None
    """Where the HTML page goes."""
    history: str | None = None
    """The history file the run is recorded in (its JSON report is made for its id)."""
    dump_records: str | None = None
    """The folder each failed or errored case's record is written to."""
    baseline: str | None = None
    """The gating baseline's path (read before the run)."""
    write_baseline: str | None = None
    """Where this run's verdicts are written as a baseline."""
    publish: bool = False
    """Whether the GitHub job summary and annotations are written (in GitHub Actions)."""


class Ran(msgspec.Struct, frozen=True, kw_only=True):
    """What ran: the cases that finished, counted, against the cases the run set out to play."""

    expected: int
    """How many cases the run set out to play."""
    counts: Counts
    """The cases that finished, counted as they finished."""
    interrupted: str | None = None
    """The signal that stopped the run (`SIGINT`, `SIGTERM`), or None."""
    stopped_early: bool = False
    """Whether the run stopped at its first failed or errored case (`-x`)."""
    shard: Shard | None = None
    """The slice of the suite the run covered (an empty shard is no failure)."""

    def stopped_by(self, stops: Sequence[str]) -> Ran:
        """This run, stopped by the first of `stops` (signals that came while its reports
        were written, held until they were whole), if any."""
        if not stops or self.interrupted is not None:
            return self
        return msgspec.structs.replace(self, interrupted=stops[0])

    @property
    def complete(self) -> bool:
        """Whether every case the run set out to play finished."""
        return self.interrupted is None and self.counts.total == self.expected


def decide(ran: Ran, comparison: Comparison | None = None) -> int:
    """The exit status of what ran: the one place it is decided.

    - stopped by a signal: 128 + its number (130 for SIGINT, 143 for SIGTERM);
    - compared with a baseline, every case finished: the comparison's (1 for a failure it
      does not excuse, else 0);
    - stopped at its first failure (`-x`): 1;
    - else 0 only when every case ran and passed (a run of no case, or of only skipped
      ones, never passes, except a shard the split left empty), and 1 otherwise.

    (A run that cannot start exits 2 before anything runs.)
    """
    if ran.interrupted is not None:
        return exit_status(ran.interrupted)
    if comparison is not None and ran.complete:
        return comparison.exit_code()
    if ran.stopped_early:
        return 1
    counts = ran.counts
    passed = passes(
        failed=counts.total - counts.passed - counts.skipped,
        total=counts.total,
        shard=ran.shard,
        interrupted=None,
        skipped=counts.skipped,
    )
    return 0 if passed and ran.complete else 1


class RunWriters:
    """Every writer of one run, each fed every case as it finishes (`add`).

    Args:
        options: What the run writes.
        extra: Writers of the layers above (the history, the progress line), fed alike.
    """

    def __init__(self, options: RunOptions, extra: Sequence[Writer] = ()) -> None:
        self.options = options
        self.counts = CaseCounts()
        made = options.json or options.html or options.history or options.output_format == "json"
        self.json = JsonWriter(options.json, spooled=True) if made else None
        self.junit = None
        if options.junit:
            self.junit = JunitWriter(options.junit, flavor=options.junit_flavor)
        self.table = TableWriter()
        self.summary = None
        if options.publish:
            from harness.reports.github import SummaryWriter  # deferred: only in GitHub Actions

            self.summary = SummaryWriter()
        self.dump = None
        if options.dump_records:
            from harness.reports.dump import RecordsDump  # deferred: only with --dump-records

            self.dump = RecordsDump(options.dump_records)
        every = (self.counts, self.json, self.junit, self.table)
        ours = [writer for writer in (*every, self.summary, self.dump) if writer is not None]
        self._every: tuple[Writer, ...] = (*ours, *extra)

    def add(self, case: CaseReport) -> None:
        """Feed one finished case to every writer (ArtifactError: one could not take it); a
        stop waits until every writer has it."""
        hold()
        try:
            for writer in self._every:
                writer.add(case)
        finally:
            release()

    def discard(self) -> None:
        """Remove what was spooled."""
        if self.json is not None:
            self.json.discard()


def load(
    folder: str, config: Config, setup: Setup, tools: tuple[str, ...], *, jobs: int = 1
) -> Suite:
    """The suite in `folder`, each fixture admitted against `tools` (`setup_from`'s names)
    and, for an `agent_command` agent, against what its wire can show.

    Raises:
        FixtureError: A fixture is refused (each refusal is a line).
    """

    if jobs == AUTO:  # loading in workers wins only with cores to spare
        jobs = cpu_count() if cpu_count() > 2 else 1
    return load_suite(
        folder,
        tools,
        config.limits,
        jobs,
        screen=_unobservable(tool_spans=setup.tool_spans) if setup.agent_command else None,
    )


def _unobservable(*, tool_spans: bool) -> Screen:
    """What refuses, before anything runs, what an `agent_command` agent's wire cannot show
    (nothing when its tool spans show it)."""
    from harness.grading.evidence import load_refusals  # deferred: agent_command only

    def screen(case: Case) -> list[FixtureError]:
        return load_refusals((case,), "agent_command", tool_spans=tool_spans)

    return screen


def play(
    suite: Suite,
    setup: Setup,
    options: RunOptions,
    on_case: Callable[[CaseReport], object],
) -> SuiteReport:
    """Run (and grade) every case of `suite`, each fed to `on_case` as it finishes; the run's
    head, its cases left out. SIGTERM stops it as SIGINT does."""
    with stop_on_sigterm():
        return run_suite(
            suite,
            mode=options.mode,
            setup=setup,
            jobs=options.jobs,
            on_case=on_case,
            stop=_failed if options.exitfirst else None,
            keep_cases=False,
        )


class Written(msgspec.Struct, frozen=True, kw_only=True):
    """What `write` leaves for what is shown after it, and for `decide`."""

    ran: Ran
    shown: SuiteReport
    """The run with its cases as the table prints them (`slim.printed`)."""
    comparison: Comparison | None = None
    """The comparison with the gating baseline, when one was made."""


def write(
    writers: RunWriters,
    head: SuiteReport,
    *,
    expected: int,
    baseline: Baseline | None = None,
    git_commit: str | None = None,
) -> Written:
    """Close every report of the run `head` describes: the JSON report, the JUnit file (its
    flipped cases marked), the HTML page and the baseline.

    Raises:
        ArtifactError: A report could not be written.
        UsageError: The gating baseline is of another tool surface (every report is written).
    """
    options = writers.options
    ran = Ran(
        expected=expected,
        counts=writers.counts.counts(),
        interrupted=head.interrupted,
        stopped_early=head.stopped_early,
        shard=head.shard,
    )
    shown = writers.table.report(head)
    foreign, comparison = _compared(baseline, shown, ran)
    if writers.json is not None:
        writers.json.close(head, git_commit)
    if writers.junit is not None:
        flips = comparison.cases if comparison is not None else None
        writers.junit.close(head, git_commit, flips=flips)
    if foreign is not None:
        raise UsageError(f"{options.baseline}: a baseline of another run: {foreign}")
    if options.html and writers.json is not None:
        from harness.reports.html import write_html  # deferred: only with --html

        write_html(options.html, b"".join(writers.json.pieces()), comparison=comparison)
    if options.write_baseline:
        _write_baseline(options, shown, comparison, complete=ran.complete)
    return Written(ran=ran, shown=shown, comparison=comparison)


def _compared(
    baseline: Baseline | None, shown: SuiteReport, ran: Ran
) -> tuple[str | None, Comparison | None]:
    """Whether the baseline is of another tool surface, and the comparison with it (made
    only of a run that finished every case)."""
    if baseline is None:
        return None, None
    from harness.reports.baseline import compare, foreign  # deferred: only with a baseline

    differs = foreign(baseline, suite=shown.suite, mode=shown.mode, tool_surface=shown.tool_surface)
    if differs is not None or not ran.complete:
        return differs, None
    return None, compare(baseline, shown)


def _write_baseline(
    options: RunOptions, shown: SuiteReport, comparison: Comparison | None, *, complete: bool
) -> None:
    """Write the run's verdicts as a baseline; a run that may not make one says why.

    A baseline that gates this run is kept, or the next run would pass on the regression it
    found.
    """
    from harness.reports.baseline import unwritten, write_baseline  # deferred: as above

    path = options.write_baseline
    assert path is not None
    gating = comparison is not None and comparison.exit_code() > 0
    refused: str | None
    if (
        gating
        and _same_file(options.baseline, path)
        and unwritten(shown, complete=complete) is None
    ):
        refused = f"{path}: baseline not written over: the comparison with it gates"
    else:
        refused = write_baseline(shown, path, complete=complete)
    if refused is not None:
        complain(refused)


def _same_file(first: str | None, second: str) -> bool:
    try:
        return first is not None and os.path.samefile(first, second)
    except OSError:  # the second does not exist yet
        return False


def _failed(case: CaseReport) -> bool:
    return case.failing  # a skipped case is no failure: `-x` goes on past it

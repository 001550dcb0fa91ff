"""Bulk work in worker processes: results in order, crashes pinned to their item."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness import _parallel
from harness._parallel import fork_shares, run_in_workers
from harness.fixtures.suite import PARALLEL_MIN
from harness.pipeline.dispatch import CRASH_MESSAGE
from tests.builders import echo_trace

ROOT = Path(__file__).resolve().parent.parent


class Point(msgspec.Struct, frozen=True):
    """An item and result type that msgpack must carry as itself."""

    x: int


class Share(msgspec.Struct, frozen=True):
    """What one share's work saw: the process it ran in and its items."""

    pid: int
    items: list[int]


def square_or_crash(item: int, state: tuple[int, int]) -> int:
    """The square of `item`; the worker dies on `crash_on` (never in the test process)."""
    crash_on, parent = state
    if item == crash_on and os.getpid() != parent:
        os._exit(3)
    return item * item


def doubled(item: Point, state: int) -> Point:
    return Point(x=item.x * 2 + state)


def where(share: Sequence[int]) -> Share:
    return Share(pid=os.getpid(), items=list(share))


@pytest.fixture(params=[True, False], ids=["fork", "forkserver"])
def forked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Workers forked (items inherited) or started by a server (items sent as msgpack)."""
    fork: bool = request.param
    monkeypatch.setattr(_parallel, "_can_fork", lambda: fork)  # other tests may leave threads
    return fork


@pytest.mark.usefixtures("forked")
def test_results_come_in_item_order_and_a_crash_is_pinned_to_its_item() -> None:
    """The item whose worker dies gets `crashed(index)`; its chunk's neighbours their results."""
    items = list(range(40))  # two workers: chunks of five, so item 7 shares its chunk
    crashes: list[int] = []

    def crashed(index: int) -> int:
        crashes.append(index)
        return -1

    results = run_in_workers(
        square_or_crash,
        items,
        (7, os.getpid()),
        2,
        item_type=int,
        result_type=int,
        crashed=crashed,
    )
    assert list(results) == [-1 if i == 7 else i * i for i in items]
    assert crashes == [7]


@pytest.mark.usefixtures("forked")
def test_items_state_and_results_keep_their_types() -> None:
    """Every worker gets the state; items and results arrive as their msgspec types."""
    items = [Point(x=i) for i in range(9)]
    results = list(
        run_in_workers(
            doubled, items, 100, 3, item_type=Point, result_type=Point, crashed=lambda i: Point(x=0)
        )
    )
    assert results == [Point(x=i * 2 + 100) for i in range(9)]


def test_fork_shares_runs_the_first_share_here_and_the_rest_in_children(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One result per contiguous share, in order; only the first is worked on in this process."""
    monkeypatch.setattr(_parallel, "_can_fork", lambda: True)
    shares = fork_shares(where, range(10), 3, Share)
    assert shares is not None
    assert [share.items for share in shares] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert shares[0].pid == os.getpid()
    assert len({share.pid for share in shares}) == 3


def test_fork_shares_gives_none_when_a_child_dies(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that exits without its result: None, so that the caller works serially."""
    parent = os.getpid()

    def die_in_children(share: Sequence[int]) -> Share:
        if os.getpid() != parent:
            os._exit(3)
        return where(share)

    monkeypatch.setattr(_parallel, "_can_fork", lambda: True)
    assert fork_shares(die_in_children, range(10), 2, Share) is None


def test_fork_shares_gives_none_where_it_cannot_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unsafe to fork, fork refused, or one job: None, and no work done here."""
    seen: list[Sequence[int]] = []

    def record(share: Sequence[int]) -> Share:
        seen.append(share)
        return where(share)

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(_parallel, "_can_fork", lambda: False)
    assert fork_shares(record, range(10), 2, Share) is None
    monkeypatch.setattr(_parallel, "_can_fork", lambda: True)
    assert fork_shares(record, range(10), 1, Share) is None
    monkeypatch.setattr(os, "fork", no_fork)
    assert fork_shares(record, range(10), 2, Share) is None
    assert seen == []


def test_importing_it_loads_no_process_machinery() -> None:
    """`cpu_count` is on every run's start-up path: workers' modules load only when used."""
    import subprocess
    import sys

    heavy = ("multiprocessing", "concurrent.futures", "tempfile")
    code = f"import sys, harness._parallel; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def sigterm_is_default(item: int, state: None) -> bool:
    """Whether SIGTERM would end this process the default way, quietly."""
    import signal

    return signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_workers_stop_quietly_on_sigterm_whatever_the_parent_handles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A broken pool ends the other workers with SIGTERM: a forked worker must not inherit the
    parent's raising handler (it printed a multiprocessing traceback as it stopped)."""
    import signal

    def raising(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_parallel, "_can_fork", lambda: True)
    previous = signal.signal(signal.SIGTERM, raising)
    try:
        results = list(
            run_in_workers(
                sigterm_is_default,
                list(range(8)),
                None,
                2,
                item_type=int,
                result_type=bool,
                crashed=lambda index: False,
            )
        )
        assert signal.getsignal(signal.SIGTERM) is raising  # the parent keeps its own
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert results == [True] * 8


def test_only_our_own_forks_reset_sigterm() -> None:
    """A fork outside the harness's workers (a project's own) keeps the handler it inherits."""
    import signal

    def keep(signum: int, frame: object) -> None:
        pass

    previous = signal.signal(signal.SIGTERM, keep)
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0 if signal.getsignal(signal.SIGTERM) is keep else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert status == 0


def test_a_crash_prints_one_line_and_no_traceback(
    forked: bool, capfd: pytest.CaptureFixture[str]
) -> None:
    """The item that dies on its own gets one line on stderr, naming it and how it died; no
    worker and no pool thread prints anything else (fd-level capture sees the workers too)."""
    results = list(
        run_in_workers(
            square_or_crash,
            list(range(40)),
            (7, os.getpid()),
            2,
            item_type=int,
            result_type=int,
            crashed=lambda index: -1,
            describe=lambda index: f"case c{index}",
        )
    )
    assert results == [-1 if i == 7 else i * i for i in range(40)]
    captured = capfd.readouterr()
    death = "exited with status 3" if forked else "exited without a result"
    assert captured.err == f"harness: the worker process running case c7 {death}\n"
    assert captured.out == ""


def test_the_default_description_counts_items(capsys: pytest.CaptureFixture[str]) -> None:
    """Without `describe`, the line names the item by its place."""
    run = run_in_workers(
        square_or_crash, list(range(9)), (4, os.getpid()), 2, item_type=int, result_type=int,
        crashed=lambda index: -1,
    )  # fmt: skip
    assert list(run)[4] == -1
    assert capsys.readouterr().err == "harness: the worker process running item 5 of 9 " + (
        "exited with status 3\n" if _parallel._can_fork() else "exited without a result\n"
    )


@pytest.mark.usefixtures("forked")
def test_a_crash_costs_a_few_pools_not_one_per_item(monkeypatch: pytest.MonkeyPatch) -> None:
    """The crashed chunk's items run in turn in one worker: chunks of 25 items, 2 crashes, and
    a handful of pools (one pool per item of the chunk took minutes on big suites)."""
    started: list[int] = []
    real = _parallel._pool

    def counted(initargs: Any, jobs: int, forked: bool) -> Any:
        started.append(jobs)
        return real(initargs, jobs, forked)

    monkeypatch.setattr(_parallel, "_pool", counted)
    items = list(range(200))  # two workers: chunks of 25
    results = list(
        run_in_workers(
            square_or_crash, items, (30, os.getpid()), 2, item_type=int, result_type=int,
            crashed=lambda index: -1,
        )
    )  # fmt: skip
    assert results == [-1 if i == 30 else i * i for i in items]
    assert len(started) <= 8


CRASHES = {"c0100": "kill", "c1500": "exit"}


def test_a_bulk_run_with_crashed_workers_end_to_end(tmp_path: Path) -> None:
    """`harness run --jobs 2` over a suite big enough for bulk workers (`PARALLEL_MIN`), two
    workers dying (SIGKILL, `os._exit(3)`): exit 1, every other case passes, the artifacts are
    written, and stderr holds one line per crashed case, nothing else."""
    suite = tmp_path / "suite"
    suite.mkdir()
    for i in range(PARALLEL_MIN + 2):
        name = f"c{i:04d}"
        (suite / f"{name}.json").write_text(json.dumps(echo_trace(model_name=name)))
    report = tmp_path / "report.json"
    argv = ["run", "--suite", str(suite), "--jobs", "2", "--json", str(report)]
    env = dict(os.environ, HARNESS_TEST_CRASH=",".join(f"{k}={v}" for k, v in CRASHES.items()))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "tests.crashing_loop", *argv],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"harness: the worker process running case c0100 ({suite / 'c0100.json'}) "
        "was killed by SIGKILL",
        f"harness: the worker process running case c1500 ({suite / 'c1500.json'}) "
        "exited with status 3",
    ]
    cases = json.loads(report.read_bytes())["cases"]
    assert len(cases) == PARALLEL_MIN + 2
    errors = {case["name"]: case["error"] for case in cases if not case["passed"]}
    assert errors == dict.fromkeys(CRASHES, CRASH_MESSAGE)


class SlowHandOut:
    """A pool that hands out its second chunk only once its first has ended: a crash on the
    first item then breaks the pool while chunks are still being handed out, every time."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.first: Any = None

    def submit(self, *args: Any) -> Any:
        if self.first is not None:
            from concurrent.futures import wait

            wait([self.first])
        future = self.pool.submit(*args)
        self.first = self.first or future
        return future

    def shutdown(self, **options: Any) -> None:
        self.pool.shutdown(**options)


@pytest.mark.usefixtures("forked")
def test_a_pool_that_breaks_while_chunks_are_handed_out(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The chunks not handed out count as left without results: no `BrokenProcessPool`
    escapes (it did, with a traceback, about one run in ten on big suites)."""
    real = _parallel._pool
    monkeypatch.setattr(
        _parallel, "_pool", lambda *args: SlowHandOut(real(*args)) if args[1] == 2 else real(*args)
    )
    items = list(range(40))
    results = run_in_workers(
        square_or_crash, items, (0, os.getpid()), 2, item_type=int, result_type=int,
        crashed=lambda index: -1,
    )  # fmt: skip
    assert list(results) == [-1] + [i * i for i in items[1:]]
    assert "Traceback" not in capfd.readouterr().err

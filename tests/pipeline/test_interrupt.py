"""A stop (SIGINT, SIGTERM) never breaks into a case being fed to the writers, nor into the
reports being written: it waits, then stops the run, and the exit status says so."""

from __future__ import annotations

import os
import signal

import pytest

from harness.pipeline.interrupt import (
    Interrupted,
    hold,
    release,
    stop_on_sigterm,
    stops_held,
)
from harness.pipeline.workflow import Ran, decide
from harness.reports.document import Counts


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_reports_are_written_waits_for_them(signum: int) -> None:
    """Inside `stops_held` the signal raises nothing; the block ends whole and names it."""
    written = []
    with stops_held() as stopped:
        os.kill(os.getpid(), signum)
        written.append("json")  # reached: the signal did not break in
        written.append("junit")
    assert written == ["json", "junit"]
    assert stopped == [signal.Signals(signum).name]


def test_a_block_with_no_stop_names_none_and_restores_the_handlers() -> None:
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with stops_held() as stopped:
        pass
    assert stopped == []
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def _feed(fed: list[str], signum: int, *, held: bool) -> None:
    """Feed one case to two writers, a stop arriving before the first takes it."""
    if held:
        hold()
    try:
        os.kill(os.getpid(), signum)
        fed.append("json")
        fed.append("junit")
    finally:
        if held:
            release()


def test_a_stop_during_a_hold_is_raised_when_the_hold_ends() -> None:
    """While a case is fed to every writer the stop waits; it stops the run right after."""
    fed: list[str] = []
    with stop_on_sigterm(), pytest.raises(Interrupted) as stop:
        _feed(fed, signal.SIGTERM, held=True)
    assert fed == ["json", "junit"]
    assert stop.value.signum == signal.SIGTERM


def test_a_stop_outside_a_hold_stops_at_once() -> None:
    fed: list[str] = []
    with stop_on_sigterm(), pytest.raises(Interrupted) as stop:
        _feed(fed, signal.SIGINT, held=False)
    assert fed == []
    assert stop.value.signum == signal.SIGINT


def test_a_stop_while_writing_gives_the_signals_exit_status() -> None:
    """Every case passed, but a SIGTERM came while the reports were written: 143, not 0."""
    ran = Ran(expected=2, counts=Counts(total=2, passed=2, errored=0))
    assert decide(ran) == 0
    assert decide(ran.stopped_by(["SIGTERM"])) == 143
    assert decide(ran.stopped_by(["SIGINT", "SIGTERM"])) == 130
    assert ran.stopped_by([]) is ran

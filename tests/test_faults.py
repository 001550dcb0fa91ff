"""Fault injection: full or read-only disks, vanishing and unreadable fixtures, broken
extensions, and interrupted runs. Each time: nothing is lost, and the message is clear."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from harness._cli.main import main
from harness.fixtures import suite as suite_module
from harness.fixtures.format import Case, LlmTrace
from harness.fixtures.suite import Suite
from harness.grading.result import GradeContext, GradeResult
from harness.messages import Event
from harness.pipeline.dispatch import run_suite
from harness.pipeline.setup import Setup
from harness.recording import RunRecord
from harness.reports import artifact
from tests.builders import echo_trace
from tests.conftest import WriteFixture


@pytest.mark.parametrize(
    ("target", "code", "reason"),
    [
        ("_create_temp", errno.EROFS, "Read-only file system"),
        ("replace", errno.ENOSPC, "No space left on device"),
    ],
)
def test_unwritable_artifact_folder_keeps_the_old_artifact(
    target: str,
    code: int,
    reason: str,
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A read-only folder or a full disk: exit 2, one clear line, the previous report intact."""
    suite = write_fixture("a.json", echo_trace()).parent
    report = tmp_path / "report.json"
    previous = {"schema_version": 1, "harness_version": "0.0.1", "previous": True}
    report.write_text(json.dumps(previous))

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError(code, reason)

    monkeypatch.setattr(artifact if target == "_create_temp" else os, target, fail)
    assert main(["run", "--suite", str(suite), "--json", str(report)]) == 2
    assert capsys.readouterr().err.endswith(f"harness: {report}: cannot write artifact: {reason}\n")
    assert json.loads(report.read_text()) == previous
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_unreadable_fixture_is_named(
    write_fixture: WriteFixture, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Permission denied on one fixture: exit 2 naming it; nothing runs."""
    locked = write_fixture("b.json", echo_trace(model_name="b"))
    write_fixture("a.json", echo_trace(model_name="a"))
    real_open = os.open

    def guarded(path: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == str(locked):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)
    assert main(["run", "--suite", str(locked.parent)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"harness: {locked}: cannot read: Permission denied\n"
    assert captured.out == ""


def test_fixture_deleted_between_listing_and_reading(
    write_fixture: WriteFixture, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that vanishes after the listing is a named rejection, not a smaller suite."""
    doomed = write_fixture("b.json", echo_trace(model_name="b"))
    write_fixture("a.json", echo_trace(model_name="a"))
    scan = suite_module._scan

    def list_then_delete(*args: Any, **kwargs: Any) -> tuple[list[str], frozenset[str]]:
        listed = scan(*args, **kwargs)
        doomed.unlink()
        return listed

    monkeypatch.setattr(suite_module, "_scan", list_then_delete)
    assert main(["run", "--suite", str(doomed.parent)]) == 2
    assert capsys.readouterr().err == f"harness: {doomed}: cannot read: No such file or directory\n"


class BrokenObserver:
    def notify(self, event: Event) -> None:
        raise RuntimeError("metrics backend down")


class BrokenGrader:
    def grade(
        self, case: Case, record: RunRecord, context: GradeContext
    ) -> tuple[GradeResult, ...]:
        raise ValueError("judge unavailable")


class CountingGrader:
    def grade(
        self, case: Case, record: RunRecord, context: GradeContext
    ) -> tuple[GradeResult, ...]:
        return (
            GradeResult(check="calls_counted", passed=True, detail=str(len(record.tool_calls))),
        )


def two_cases() -> Suite:
    cases = tuple(
        Case(source=f"{name}.json", trace=msgspec.convert(echo_trace(model_name=name), LlmTrace))
        for name in ("first", "second")
    )
    return Suite(name="s", directory="s", cases=cases, total=2)


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (
            Setup(observers=(BrokenObserver(),)),
            "observer BrokenObserver failed: RuntimeError: metrics backend down",
        ),
        (
            Setup(graders=(BrokenGrader(),)),
            "grader BrokenGrader failed: ValueError: judge unavailable",
        ),
    ],
    ids=["observer", "grader"],
)
def test_a_broken_extension_errors_its_cases_only(setup: Setup, message: str) -> None:
    """The failure is named; the record the harness keeps is complete; the suite goes on."""
    report = run_suite(two_cases(), setup=setup)
    assert [case.error for case in report.cases] == [message, message]
    assert all(len(case.record.tool_calls) == 1 for case in report.cases)


def test_working_extensions_add_their_grades() -> None:
    """Extension graders run after the expectations; their grades count."""
    report = run_suite(two_cases(), setup=Setup(graders=(CountingGrader(),)))
    assert report.all_passed
    assert report.cases[0].grades[-1] == GradeResult(check="calls_counted", passed=True, detail="1")


SLOW_AGENT = """
import os, time
from harness.replay.agent import ReferenceAgent

class Slow:
    def __init__(self, inner):
        self.inner = inner

    def turn(self, user_input):
        open(os.path.join(os.environ["MARKERS"], str(time.monotonic_ns())), "w").close()
        time.sleep(0.25)
        return self.inner.turn(user_input)

def factory(context):
    return Slow(ReferenceAgent(context.provider, context.tools))
"""


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_stops_promptly_and_keeps_what_finished(
    signum: int, status: int, write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """Exit 128 + signal; the artifacts are whole and marked interrupted; no history entry."""
    for i in range(40):
        write_fixture(f"c{i:02d}.json", echo_trace(model_name=f"c{i:02d}"))
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT)
    markers = tmp_path / "markers"
    markers.mkdir()
    out = tmp_path / "out"
    argv = [
        sys.executable,
        "-m",
        "harness",
        "run",
        "--suite",
        "suite",
        "--agent",
        "slow_agent:factory",
    ]
    argv += [
        "--json",
        str(out / "r.json"),
        "--junit",
        str(out / "r.xml"),
        "--history",
        str(out / "h.sqlite"),
    ]
    env = {**os.environ, "MARKERS": str(markers)}
    # An ignored SIGINT survives exec (a background job of a shell without job control has
    # one): handled here while the child starts, it reaches the child as the default.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        child = subprocess.Popen(
            argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    finally:
        if previous is not None:  # None: set outside Python, and left to it
            signal.signal(signal.SIGINT, previous)
    deadline = time.monotonic() + 60
    while len(os.listdir(markers)) < 4:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the run never started its cases"
        time.sleep(0.02)
    sent = time.monotonic()
    child.send_signal(signum)
    stdout, _ = child.communicate(timeout=60)
    assert child.returncode == status
    assert time.monotonic() - sent < 30  # promptly: far sooner than the remaining cases
    report = json.loads((out / "r.json").read_text())
    assert report["interrupted"] == signal.Signals(signum).name
    assert 3 <= report["total"] < 40
    assert report["all_passed"] is False
    assert b"INTERRUPTED by" in stdout
    assert (out / "r.xml").read_text().count("<testcase ") == report["total"]
    assert not (out / "h.sqlite").exists()

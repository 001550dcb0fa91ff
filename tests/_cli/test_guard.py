"""No way to a false green: a run ended early at any stage never exits 0.

Each test runs `harness run` in a child process with one stage patched to end the process
there, the way code the run calls could: `sys.exit(0)`, `os._exit(0)`, or a kill.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders import echo_trace

REPO = Path(__file__).resolve().parents[2]

DRIVER = """
import os, signal, sys
target, name, how = sys.argv[1], sys.argv[2], sys.argv[3]

def end(*args, **kwargs):
    if how == "sys.exit":
        sys.exit(0)
    if how == "os._exit":
        os._exit(0)
    os.kill(os.getpid(), signal.SIGKILL)

import importlib
owner, _, attribute = target.rpartition(".")
try:
    holder = importlib.import_module(owner)
except ImportError:
    module, _, cls = owner.rpartition(".")
    holder = getattr(importlib.import_module(module), cls)
if name != "-":
    setattr(holder, attribute, end)
from harness._cli.main import main
sys.exit(main(sys.argv[4:]))
"""

STAGES = [
    "harness.pipeline.dispatch.run_case",  # a case
    "harness.pipeline.case.grade_case",  # grading
    "harness.pipeline.workflow.RunWriters.add",  # a finished case fed to the writers
    "harness.reports.writers.JsonWriter.close",  # the JSON report finished
    "harness.reports.writers.JunitWriter.close",  # the JUnit file finished
    "harness.reports.writers.write_atomic",  # an artifact written
    "harness.pipeline.workflow.decide",  # the exit status decided
    "harness.history.writer.HistoryWriter.close",  # the history recorded
    "harness.history.store.History.record_run",
]


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    for index in range(3):
        trace = echo_trace()
        trace["model_name"] = f"case-{index}"
        (suite / f"case_{index}.json").write_text(json.dumps(trace), encoding="utf-8")
    return suite


def _run(tmp_path: Path, target: str, how: str, *extra: str) -> subprocess.CompletedProcess[str]:
    suite = _suite(tmp_path)
    argv = ["run", "--suite", str(suite), "--json", str(tmp_path / "r.json")]
    argv += ["--junit", str(tmp_path / "r.xml"), "--history", str(tmp_path / "h.db"), *extra]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("GITHUB_ACTIONS", None)
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run(
        [sys.executable, "-c", DRIVER, target, "x", how, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )


def test_the_unpatched_run_passes(tmp_path: Path) -> None:
    """The control: the same run, not ended early, exits 0 with every artifact."""
    suite = _suite(tmp_path)
    argv = ["run", "--suite", str(suite), "--json", str(tmp_path / "r.json")]
    argv += ["--junit", str(tmp_path / "r.xml"), "--history", str(tmp_path / "h.db")]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run(
        [sys.executable, "-c", DRIVER, "os.getcwd", "-", "none", *argv],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert all((tmp_path / name).exists() for name in ("r.json", "r.xml", "h.db"))


@pytest.mark.parametrize("how", ["sys.exit", "os._exit", "kill"])
@pytest.mark.parametrize("stage", STAGES)
def test_a_run_ended_early_never_exits_zero(tmp_path: Path, stage: str, how: str) -> None:
    """Ended at any stage before its reports are written and read back, the run exits non-0."""
    run = _run(tmp_path, stage, how)
    assert run.returncode != 0, (stage, how, run.stderr)
    assert "Traceback" not in run.stderr
    if how == "kill":
        assert run.returncode == -signal.SIGKILL
    else:
        assert run.returncode == 1
        assert "before its report was written" in run.stderr


@pytest.mark.parametrize("how", ["sys.exit", "os._exit"])
def test_a_case_ending_its_worker_never_exits_zero(tmp_path: Path, how: str) -> None:
    """With worker processes (a project's tools get them), an exit in a case is no green.

    (The worker pool's own noise when a worker dies is not what this test is about.)
    """
    tools = "tests.agents:upper_tools"
    stage = "harness.pipeline.supervisor.run_case"  # the project's code runs supervised
    run = _run(tmp_path, stage, how, "--jobs", "2", "--tools", tools)
    assert run.returncode == 1, run.stderr


def _plain_run(tmp_path: Path, *shell: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    suite = _suite(tmp_path)
    command = (
        f"{sys.executable} -m harness run --suite {suite} --json {tmp_path / 'r.json'} "
        f"--junit {tmp_path / 'r.xml'} --history {tmp_path / 'h.db'} {' '.join(shell)}"
    )
    run = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    return run.returncode, run.stderr


@pytest.mark.parametrize(
    ("redirect", "env"),
    [
        ("> /dev/full", None),
        (">&-", None),
        ("| true", None),  # the reader is gone before the table comes
        ("| cat", {"PYTHONIOENCODING": "ascii"}),
        ("--format json > /dev/full", None),
        ("--format json | true", None),
    ],
)
def test_a_failing_stdout_keeps_the_verdict_and_the_artifacts(
    tmp_path: Path, redirect: str, env: dict[str, str] | None
) -> None:
    """Stdout failing after the run: status 0 as the verdict says, every artifact, <= 1 line."""
    command = f"{redirect}; exit ${{PIPESTATUS[0]}}"
    status, stderr = _plain_run(tmp_path, command, env=env)
    assert status == 0, stderr
    assert len(stderr.splitlines()) <= 1, stderr
    assert "Traceback" not in stderr
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["all_passed"] is True
    assert (tmp_path / "r.xml").read_bytes().startswith(b"<?xml")
    assert (tmp_path / "h.db").stat().st_size > 0

"""Rough edges of the command line, each reproduced: prefixes, closed pipes, dead commands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness._cli.main import main
from tests.builders import echo_trace
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "argv",
    [["run", "--bogus"], ["run", "--jobs", "0"], ["trend", "--last", "x"], ["nope"], []],
)
def test_a_usage_error_has_one_harness_prefix(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`harness: run: ...`, never `harness: harness: ...`."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("harness: ")
    assert "harness: harness" not in err
    assert len(err.splitlines()) == 1


def closed_pipe(*argv: str) -> tuple[int, str]:
    """Run `python -m harness ARGV` with a stdout pipe whose reader is already gone."""
    read, write = os.pipe()
    os.close(read)  # every write to stdout now fails with EPIPE
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "harness", *argv],
        cwd=REPO,
        env=env,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    os.close(write)
    return done.returncode, done.stderr


def test_a_reader_that_goes_away_ends_every_command_quietly(tmp_path: Path) -> None:
    """`harness ... | head -1`: no traceback, no message; run keeps its status and artifacts."""
    history, report = tmp_path / "h.sqlite", tmp_path / "r.json"
    argv = ["run", "--suite", "evals/capability", "--history", str(history), "--json", str(report)]
    assert closed_pipe(*argv) == (1, "")
    assert report.stat().st_size > 0
    assert closed_pipe(*argv, "-v", "--config", str(REPO / "pyproject.toml")) == (1, "")
    assert closed_pipe("trend", "--history", str(history)) == (0, "")
    assert closed_pipe("schema", "report") == (0, "")


def test_an_agent_command_that_cannot_start_exits_2_before_any_case(
    write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not found on PATH, no such file, not executable: one line, exit 2, no case run."""
    suite = write_fixture("a.json", echo_trace()).parent
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\n")
    report = tmp_path / "r.json"
    for command, said in [
        ("no-such-agent-xyz --flag", "cannot start 'no-such-agent-xyz': not found on PATH"),
        ("./missing/agent.py", "cannot start './missing/agent.py': no such file"),
        (str(script), f"cannot start {str(script)!r}: not executable"),
    ]:
        argv = ["run", "--suite", str(suite), "--agent-command", command, "--json", str(report)]
        assert main(argv) == 2
        assert capsys.readouterr().err == f"harness: --agent-command: {said}\n"
        assert not report.exists()

"""The last-failed cache: what is not a regular file is skipped with a warning."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("flags", [[], ["--last-failed"]], ids=["run", "last-failed"])
def test_a_cache_that_is_a_fifo_is_skipped_with_a_warning(tmp_path: Path, flags: list[str]) -> None:
    """A FIFO at .harness/last-failed.json: one warning, the run's status, no hang, the FIFO
    left a FIFO."""
    from tests.builders import echo_trace

    (tmp_path / "pyproject.toml").write_text('[tool.harness]\nsuite_dir = "suite"\n')
    (tmp_path / "suite").mkdir()
    red = echo_trace(model_name="red", expects={"response_contains": ["never said"]})
    (tmp_path / "suite" / "red.json").write_text(json.dumps(red))
    (tmp_path / ".harness").mkdir()
    fifo = tmp_path / ".harness" / "last-failed.json"
    os.mkfifo(fifo)
    argv = [sys.executable, "-m", "harness", "run", *flags]
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    # the bound fails a hang instead of blocking CI; it is not a timing assertion
    done = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 1
    warning = (
        "harness: .harness/last-failed.json: the last-failed cache is not a regular file, not a"
        " cache file: skipped"
    )
    lines = done.stderr.splitlines()
    assert lines[0] == warning
    assert lines.count(warning) == 1  # said once, though the cache is looked at twice
    assert len(lines) == 1 + bool(flags)  # --last-failed then runs every case, and says so
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)

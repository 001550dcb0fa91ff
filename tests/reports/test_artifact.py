"""Atomic artifact writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.errors import ArtifactError
from harness.reports.artifact import read_artifact, write_atomic


def test_write_creates_parents_and_leaves_no_temp_file(tmp_path: Path) -> None:
    """The file lands whole; no temp file is left beside it."""
    target = tmp_path / "a" / "b" / "report.json"
    write_atomic(str(target), b"{}")
    assert target.read_bytes() == b"{}"
    assert os.listdir(target.parent) == ["report.json"]


def test_failed_write_keeps_the_previous_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the rename fails the old artifact is intact and the temp file is gone."""
    target = tmp_path / "report.json"
    target.write_bytes(b"old")

    def fail(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(ArtifactError, match="cannot write artifact: No space left on device"):
        write_atomic(str(target), b"new")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["report.json"]


def test_unwritable_location_is_an_artifact_error(tmp_path: Path) -> None:
    """A parent that is a file cannot hold the artifact."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ArtifactError) as caught:
        write_atomic(str(blocker / "report.json"), b"{}")
    assert caught.value.path == str(blocker / "report.json")


KILLED_WRITER = """
import os, sys, time
from harness.reports import artifact

def stall(fd):
    open(sys.argv[2], "w").close()  # tell the parent the new bytes are on disk
    time.sleep(60)

artifact.os.fsync = stall
artifact.write_atomic(sys.argv[1], b'{"all_passed": false, "half": "' + b"x" * 1_000_000)
"""


def test_a_run_killed_mid_write_leaves_the_old_artifact_intact(tmp_path: Path) -> None:
    """SIGKILL while the new artifact is being written: the old one is still whole."""
    target = tmp_path / "report.json"
    target.write_text('{"all_passed": true}')
    ready = tmp_path / "ready"
    child = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target), str(ready)])
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert child.poll() is None, "the writer exited before it was killed"
            assert time.monotonic() < deadline, "the writer never reached the write"
            time.sleep(0.01)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait()
    assert json.loads(target.read_text()) == {"all_passed": True}


STALLED_WRITER = """
import os, signal, sys, time
from harness.reports import artifact

if sys.argv[3] == "raise":
    def stop(signum, frame):
        raise SystemExit(7)
    signal.signal(signal.SIGTERM, stop)

def stall(fd):
    open(sys.argv[2], "w").close()  # tell the parent the temp file is on disk
    time.sleep(60)

artifact.os.fsync = stall
artifact.write_atomic(sys.argv[1], b"x" * 1_000_000)
"""


@pytest.mark.parametrize(("handler", "status"), [("default", -signal.SIGTERM), ("raise", 7)])
def test_sigterm_mid_write_leaves_no_temp_file(tmp_path: Path, handler: str, status: int) -> None:
    """Whether SIGTERM kills the process outright or its handler raises, the .tmp is gone."""
    target = tmp_path / "out" / "report.json"
    ready = tmp_path / "ready"
    argv = [sys.executable, "-c", STALLED_WRITER, str(target), str(ready), handler]
    child = subprocess.Popen(argv)
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert child.poll() is None, "the writer exited before it was stopped"
            assert time.monotonic() < deadline, "the writer never reached the write"
            time.sleep(0.01)
        assert [name for name in os.listdir(target.parent) if name.endswith(".tmp")]
        child.send_signal(signal.SIGTERM)
    finally:
        child.wait()
    assert child.returncode == status  # the signal did what it would have done
    assert os.listdir(target.parent) == []


def test_a_write_restores_the_signal_handlers_it_wraps(tmp_path: Path) -> None:
    """Outside a write, SIGTERM and SIGINT are handled as before it."""
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    write_atomic(str(tmp_path / "report.json"), b"{}")
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_read_artifact_reads_a_regular_file_and_refuses_a_device(tmp_path: Path) -> None:
    """The bytes of a report file; `/dev/zero` refused at once, as the loader refuses it."""
    path = tmp_path / "report.json"
    path.write_bytes(b'{"a": 1}')
    assert read_artifact(str(path), ArtifactError) == b'{"a": 1}'
    with pytest.raises(ArtifactError, match="not a regular file, not a report file"):
        read_artifact("/dev/zero", ArtifactError)
    with pytest.raises(ArtifactError, match="is a folder, not a report file"):
        read_artifact(str(tmp_path), ArtifactError)
    with pytest.raises(ArtifactError, match="over the 4-byte limit"):
        read_artifact(str(path), ArtifactError, 4)


def test_a_write_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    """The file the link points at is replaced; the link itself stays a link."""
    from harness.reports.artifact import write_atomic

    target = tmp_path / "target.json"
    target.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(str(link), b"new")
    assert link.is_symlink()
    assert target.read_bytes() == b"new"

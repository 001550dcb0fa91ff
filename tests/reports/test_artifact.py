"""Atomic artifact writes."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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


def _suite(tmp_path: Path, cases: int = 1) -> Path:
    """A suite of `cases` cases that pass."""
    from tests.builders import echo_trace

    folder = tmp_path / "suite"
    folder.mkdir()
    for index in range(cases):
        trace = echo_trace(model_name=f"c{index}")
        (folder / f"c{index}.json").write_text(json.dumps(trace))
    return folder


def _harness(*argv: str, **options: Any) -> subprocess.CompletedProcess[str]:
    """`python -m harness ARGV` in a child, bounded so that a hang fails the test, not CI."""
    env = {**os.environ, "NO_COLOR": "1", **options.pop("env", {})}
    streams = {"stderr": subprocess.PIPE, "stdout": options.pop("stdout", subprocess.PIPE)}
    return subprocess.run(
        [sys.executable, "-m", "harness", *argv],
        env=env,
        text=True,
        **streams,
        check=False,
        timeout=300,
        **options,
    )


def _null_device(tmp_path: Path, name: str) -> Path:
    """A character device like /dev/null, made in `tmp_path` (root), else /dev/null itself."""
    node = tmp_path / name
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        return Path("/dev/null")
    return node


@pytest.mark.parametrize("flag", ["--json", "--junit", "--write-baseline"])
def test_a_device_output_is_written_in_place_never_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    """As root a rename would turn the device into a regular file: it stays a device."""
    from harness._cli.main import main

    device = _null_device(tmp_path, "null")
    assert main(["run", "--suite", str(_suite(tmp_path)), flag, str(device)]) == 0
    assert stat.S_ISCHR(os.stat(device).st_mode)
    assert capsys.readouterr().err == ""
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_fifo_output_with_no_reader_is_one_line_never_a_hang(tmp_path: Path) -> None:
    """No reader: refused with one line and exit 2; the FIFO is left a FIFO."""
    fifo = tmp_path / "report.json"
    os.mkfifo(fifo)
    done = _harness("run", "--suite", str(_suite(tmp_path)), "--json", str(fifo))
    assert done.returncode == 2
    assert (
        done.stderr
        == f"harness: {fifo}: cannot write artifact: is a FIFO or socket with no reader\n"
    )
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_socket_output_is_refused_before_the_run(tmp_path: Path) -> None:
    """A socket is nothing a report is written to: exit 2 at once, the socket left as it is."""
    import socket

    path = tmp_path / "report.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        done = _harness("run", "--suite", str(_suite(tmp_path)), "--junit", str(path))
    assert done.returncode == 2
    assert done.stderr == (
        f"harness: --junit {path}: is a socket: never written to, never replaced\n"
    )


def test_json_to_dev_stdout_goes_to_stdout(tmp_path: Path) -> None:
    """`--json /dev/stdout` writes the document into the pipe, exit 0, nothing on stderr."""
    argv = ("run", "--suite", str(_suite(tmp_path)), "--json", "/dev/stdout", "--format", "json")
    done = _harness(*argv)
    assert (done.returncode, done.stderr) == (0, "")
    first, second = done.stdout.split("\n}\n", 1)  # the artifact, then the stdout document
    assert json.loads(first + "}")["all_passed"] is True
    assert json.loads(second)["all_passed"] is True


@pytest.mark.parametrize(
    ("cases", "limit_bytes"), [(1, 512), (120, 16_384)], ids=["at-the-write", "mid-run-spool"]
)
def test_a_file_size_limit_is_one_line_and_leaves_no_partial_artifact(
    tmp_path: Path, cases: int, limit_bytes: int
) -> None:
    """`ulimit -f` (EFBIG; SIGXFSZ is ignored), as the report is written or while its cases
    are spooled: one line, exit 2, no report and no temp file."""
    import resource

    folder = _suite(tmp_path, cases)
    out = tmp_path / "out"
    out.mkdir()
    report = out / "report.json"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    done = _harness("run", "--suite", str(folder), "--json", str(report), preexec_fn=limit)
    assert done.returncode == 2
    assert done.stderr == f"harness: {report}: cannot write artifact: File too large\n"
    assert os.listdir(out) == []


def test_json_to_dev_stdout_redirected_to_a_file_is_appended_not_replaced(tmp_path: Path) -> None:
    """`--json /dev/stdout > out`: the document, then the table, in the shell's file."""
    out = tmp_path / "out.txt"
    with out.open("wb") as stdout:
        argv = ("run", "--suite", str(_suite(tmp_path)), "--json", "/dev/stdout")
        done = _harness(*argv, stdout=stdout)
    assert (done.returncode, done.stderr) == (0, "")
    text = out.read_text()
    document, table = text.split("\n}", 1)
    assert json.loads(document + "\n}")["all_passed"] is True
    assert "1 passed" in table

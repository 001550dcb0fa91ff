"""capture: a case's stdout and stderr taken at the descriptor level, bounded, with the marker."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harness.pipeline.capture import Capture, Captured
from harness.text import truncate


def test_print_raw_writes_and_children_are_all_captured() -> None:
    """Python's streams, the descriptors themselves and a child process land in the capture."""
    with Capture(1000) as capture:
        print("printed")
        print("warned", file=sys.stderr)
        os.write(1, b"raw\n")
        subprocess.run(["sh", "-c", "echo child; echo child-err >&2"], check=True)
    assert capture.result.stdout == "printed\nraw\nchild\n"
    assert capture.result.stderr == "warned\nchild-err\n"
    assert capture.result.overflow_error(1000) is None


def test_each_case_starts_empty() -> None:
    """The capture files are reused, emptied for every case."""
    with Capture(1000) as first:
        print("a long first case")
    with Capture(1000) as second:
        print("b")
    assert (first.result.stdout, second.result.stdout) == ("a long first case\n", "b\n")


@pytest.mark.parametrize("size", [150, 10_000, 3 << 20])
def test_over_the_cap_is_cut_with_the_one_marker(size: int) -> None:
    """Past the cap the text is cut as `truncate` cuts it, the count exact, and the case errs."""
    text = "é" * size
    with Capture(100) as capture:
        sys.stdout.write(text)
    assert capture.result.stdout == truncate(text, 100)
    assert capture.result.stdout_chars == size
    reason = capture.result.overflow_error(100)
    assert reason is not None
    assert f"the agent wrote {size} characters to stdout" in reason


def test_live_output_goes_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    """-s: nothing captured; the agent's stdout is shown on stderr, so stdout stays the report's."""
    with Capture(1000, live=True) as capture:
        print("shown live")
        os.write(1, b"raw live\n")
    assert capture.result == Captured()
    out, err = capfd.readouterr()
    assert "shown live" not in out
    assert "shown live\nraw live\n" in err


def test_streams_are_restored_after_the_case() -> None:
    """After the block, sys.stdout and the descriptors are what they were."""
    before = (sys.stdout, sys.stderr, os.fstat(1).st_ino, os.fstat(2).st_ino)
    with Capture(10):
        print("x")
    assert before == (sys.stdout, sys.stderr, os.fstat(1).st_ino, os.fstat(2).st_ino)


def test_a_closed_stdout_is_captured_then_left_closed() -> None:
    """`harness run >&-`: the case is still captured, and descriptor 1 is closed again after."""
    saved = os.dup(1)
    try:
        os.close(1)
        with Capture(100) as capture:
            os.write(1, b"into the capture\n")
        closed = _is_closed(1)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    assert capture.result.stdout == "into the capture\n"
    assert closed


def _is_closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


@pytest.mark.parametrize("before", [90, 96, 99])
def test_a_secret_at_the_cut_is_masked_before_it_is_cut(
    before: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A credential that straddles the capture limit shows none of what follows its first 4
    characters: it is masked whole, then cut."""
    from harness import masking

    token = "q7Zp2LmN9xKv4RtY8sWb3CdF"
    monkeypatch.setenv("MY_SERVICE_TOKEN", token)
    masking._environment.cache_clear()  # the environment is read once a process
    masking.held.cache_clear()
    try:
        with Capture(100) as capture:
            os.write(1, b"O" * before + token.encode())
            os.write(2, b"E" * before + f"api_key={token}".encode())
    finally:
        masking._environment.cache_clear()
        masking.held.cache_clear()
    for text in (capture.result.stdout, capture.result.stderr):
        assert token[:5] not in text
        assert "…[truncated" in text

"""What a run shows while it runs, and its color: on a terminal, piped, and in files."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from harness._cli.color import use_color
from harness._cli.main import main
from harness._cli.progress import Progress
from harness.grading.result import GradeResult
from harness.reports.model import CaseReport
from tests.builders import echo_trace
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]
ESC = "\x1b"


@pytest.fixture
def suite(write_fixture: WriteFixture) -> Path:
    write_fixture("a.json", echo_trace(model_name="first"))
    write_fixture("b.json", echo_trace(model_name="second", expects={"response_contains": ["no"]}))
    return write_fixture("c.json", echo_trace(model_name="third")).parent


def harness(*argv: str, terminal: bool, env: dict[str, str] | None = None) -> str:
    """Run `python -m harness ARGV` with stdout on a pseudo-terminal or a pipe; its stdout."""
    environ = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "FORCE_COLOR"}}
    environ.update({"TERM": "xterm", **(env or {})})
    command = [sys.executable, "-m", "harness", *argv]
    if not terminal:
        done = subprocess.run(command, cwd=REPO, env=environ, capture_output=True, check=False)
        return done.stdout.decode()
    leader, follower = pty.openpty()
    with subprocess.Popen(command, cwd=REPO, env=environ, stdout=follower) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait()
    os.close(leader)
    return b"".join(chunks).decode()


def test_a_terminal_gets_progress_and_color(suite: Path, tmp_path: Path) -> None:
    """Under a pseudo-terminal: the progress line from 0/N, then colored marks and recap."""
    report = tmp_path / "r.json"
    out = harness("run", "--suite", str(suite), "--json", str(report), terminal=True)
    assert "\r0/3 cases, " in out
    assert "3/3 cases, 1 failed, " in out
    assert out.index("0/3 cases") < out.index("case ")  # drawn before the table
    assert f"{ESC}[31mFAILED{ESC}[0m second" in out
    assert f"{ESC}[32m✓" in out
    assert ESC not in report.read_text()  # never ANSI in files


def test_a_pipe_gets_no_progress_and_no_color(suite: Path) -> None:
    """Piped: no carriage return, no escape; NO_COLOR wins over --color auto on a terminal."""
    out = harness("run", "--suite", str(suite), terminal=False)
    assert "\r" not in out
    assert ESC not in out
    assert "1 failed, 2 passed in " in out
    out = harness("run", "--suite", str(suite), terminal=True, env={"NO_COLOR": "1"})
    assert ESC not in out
    assert "\r0/3 cases" in out  # progress is not color: NO_COLOR keeps it


def test_forced_color_off_a_terminal_still_keeps_files_plain(suite: Path, tmp_path: Path) -> None:
    """--color always or FORCE_COLOR colors a pipe's table, never the JSON or JUnit."""
    junit, report = tmp_path / "r.xml", tmp_path / "r.json"
    argv = ["run", "--suite", str(suite), "--junit", str(junit), "--json", str(report)]
    for extra, env in [(["--color", "always"], {}), ([], {"FORCE_COLOR": "1"})]:
        out = harness(*argv, *extra, terminal=False, env=env)
        assert f"{ESC}[31m" in out
        assert "\r" not in out
        assert ESC not in junit.read_text()
        assert ESC not in report.read_text()
    out = harness(*argv, "--color", "never", terminal=True, env={"FORCE_COLOR": "1"})
    assert ESC not in out


@pytest.mark.parametrize(
    ("choice", "env", "tty", "expected"),
    [
        ("auto", {}, True, True),
        ("auto", {}, False, False),
        ("auto", {"TERM": "dumb"}, True, False),
        ("auto", {"NO_COLOR": "1"}, True, False),
        ("auto", {"NO_COLOR": ""}, True, True),  # an empty NO_COLOR does not count
        ("auto", {"FORCE_COLOR": "1"}, False, True),
        ("auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False),
        ("always", {"NO_COLOR": "1"}, False, True),
        ("never", {"FORCE_COLOR": "1"}, True, False),
    ],
)
def test_when_color_is_used(choice: str, env: dict[str, str], tty: bool, expected: bool) -> None:
    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return tty

    assert use_color(choice, Stream(), env) is expected


def test_verbose_prints_each_verdict_as_it_finishes(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-v: one line per case, in order, before the table; beside --format json, on stderr."""
    assert main(["run", "--suite", str(suite), "-v"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in out[:3]] == [
        ["PASS", "first"],
        ["FAIL", "second"],
        ["PASS", "third"],
    ]
    assert out[1].endswith(": 0/1 checks")
    assert out[3].startswith("    case")
    assert main(["run", "--suite", str(suite), "-v", "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["total"] == 3
    assert [line.split()[0] for line in captured.err.splitlines()] == ["PASS", "FAIL", "PASS"]


def test_progress_counts_and_erases_its_line() -> None:
    """The line counts done, failed and errored cases; finishing blanks it with spaces."""
    stream = io.StringIO()
    progress = Progress(3, stream=stream)
    progress.start()
    progress.add(CaseReport(name="a", source="a.json", error="boom"))
    grade = GradeResult(check="c", passed=False, detail="d")
    progress.add(CaseReport(name="b", source="b.json", grades=(grade,)))
    progress.add(CaseReport(name="c", source="c.json"))
    assert progress.line().startswith("3/3 cases, 2 failed, 1 errored, ")
    progress.finish()
    text = stream.getvalue()
    assert text.startswith("\r0/3 cases, 0.00s")
    assert text.endswith("\r" + " " * len(progress.line()) + "\r")
    assert ESC not in text


def test_a_run_off_a_terminal_imports_nothing_for_it(suite: Path) -> None:
    """Piped, the progress module is never imported; with --format json, nor color, nor the
    table's layout (tabulate)."""
    code = (
        "import sys; from harness._cli.main import main; main(sys.argv[1:]); "
        "print(sorted(m for m in sys.modules if m in {'harness._cli.progress', "
        "'harness._cli.color', 'tabulate'}), file=sys.stderr)"
    )
    for argv, expected in [
        ([], "['harness._cli.color', 'tabulate']"),
        (["--format", "json"], "[]"),
    ]:
        done = subprocess.run(
            [sys.executable, "-c", code, "run", "--suite", str(suite), *argv],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.stderr.strip() == expected


def test_a_skipped_case_is_counted_and_shown_as_skipped_not_failed() -> None:
    verbose = io.StringIO()
    progress = Progress(2, stream=None, verbose=verbose)
    progress.add(CaseReport(name="later", source="s/later.json", skipped="not yet"))
    bad = GradeResult(check="a", passed=False, detail="no")
    progress.add(CaseReport(name="bad", source="s/bad.json", grades=(bad,)))
    assert progress.failed == 1
    assert verbose.getvalue().splitlines()[0].startswith("SKIP  later (")
    assert verbose.getvalue().splitlines()[1].startswith("FAIL  bad (")
    assert "1 failed" in progress.line()

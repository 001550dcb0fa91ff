"""Bounded inputs, hostile content and redaction: the gate never crashes, hangs or leaks."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from harness.errors import FixtureError
from harness.fixtures.reading import read_fixture
from harness.reports.redact import MARK, RECORD_LIMIT, redact
from tests.builders import echo_trace, text_step
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parent.parent


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    for needle in needles:
        assert needle in err
    return err


def test_oversized_fixture_is_refused_before_reading(
    write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """max_fixture_bytes bounds every read."""
    path = write_fixture("big.json", echo_trace(model_name="x" * 5000))
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.harness]\nmax_fixture_bytes = 1000\n")
    argv = ["run", "--suite", str(path.parent), "--config", str(config)]
    one_line_exit_2(argv, capsys, f"{path}: is ", "over the 1000-byte limit (max_fixture_bytes)")


def test_deep_nesting_is_refused(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Arguments nested past max_nesting, or past what the decoder follows, are refused."""
    trace = json.dumps(echo_trace()).replace(
        '"message": "hello"', '"message": ' + "[" * 99 + "]" * 99
    )
    path = write_fixture("deep.json", trace)
    one_line_exit_2(
        ["run", "--suite", str(path.parent)],
        capsys,
        f"{path}: $.turns[0].steps[0].response.tool_calls[0].arguments: nests deeper than 64",
    )
    path.write_text(
        json.dumps(echo_trace()).replace(
            '"message": "hello"', '"message": ' + "[" * 5000 + "]" * 5000
        )
    )
    one_line_exit_2(
        ["run", "--suite", str(path.parent)],
        capsys,
        f"{path}: nests deeper than the decoder follows",
    )


def test_too_many_fixtures_is_refused(
    write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """max_fixtures bounds a suite."""
    for i in range(3):
        path = write_fixture(f"c{i}.json", echo_trace(model_name=f"c{i}"))
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.harness]\nmax_fixtures = 2\n")
    argv = ["run", "--suite", str(path.parent), "--config", str(config)]
    one_line_exit_2(argv, capsys, "holds 3 fixtures, over the limit of 2 (max_fixtures)")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(
            b'{"model_name": "caf\xe9"}',
            "line 1, column 20: is not valid UTF-8 (byte 0xe9)",
            id="latin-1",
        ),
        pytest.param(
            b"\xef\xbb\xbf{}", "line 1, column 1: starts with a byte order mark (BOM)", id="bom"
        ),
    ],
)
def test_encoding_problems_are_named(
    content: bytes, message: str, write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Non-UTF-8 bytes and a BOM get their own clear reason and position."""
    path = write_fixture("enc.json", content)
    one_line_exit_2(["run", "--suite", str(path.parent)], capsys, f"{path}: {message}")


def special_file(kind: str, path: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    elif kind == "folder":
        path.mkdir()
    else:
        try:
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero: never ends
        except PermissionError:
            path.symlink_to("/dev/zero")  # not root: the same endless device, through a link


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "folder"])
def test_special_files_are_refused_without_blocking(
    kind: str, write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO (which would block), a socket, a device (endless) or a folder is not a fixture."""
    suite = write_fixture("a_ok.json", echo_trace()).parent
    special = suite / "b_special.json"
    special_file(kind, special)
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.harness]\nfollow_external_symlinks = true\n")
    expected = (
        "is a folder, not a fixture file"
        if kind == "folder"
        else "is not a regular file, not a fixture file"
    )
    one_line_exit_2(
        ["run", "--suite", str(suite), "--config", str(config)], capsys, f"{special}: {expected}"
    )


def test_symlink_outside_the_suite_is_refused_unless_allowed(
    write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link may point inside the suite folder; outside needs follow_external_symlinks."""
    suite = write_fixture("a.json", echo_trace(model_name="a")).parent
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps(echo_trace(model_name="b")))
    (suite / "b.json").symlink_to(outside)
    one_line_exit_2(
        ["run", "--suite", str(suite)], capsys, f"{suite / 'b.json'}: is a symlink to {outside}"
    )
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.harness]\nfollow_external_symlinks = true\n")
    assert main(["run", "--suite", str(suite), "--config", str(config)]) == 0


def test_a_link_inside_the_suite_is_followed(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Links that stay in the suite folder are fine (and duplicates are still caught)."""
    suite = write_fixture("a.json", echo_trace(model_name="a")).parent
    (suite / "b.json").symlink_to(suite / "a.json")
    one_line_exit_2(["run", "--suite", str(suite)], capsys, 'duplicate case name "a"')


CATASTROPHIC = """
import json, sys
from harness.grading.expectations import evaluate_expects
from harness.fixtures.format import Expects
from harness.recording import RunRecord
expects = Expects(response_matches=("(a+)+$", "(a|aa)+b", "(x+x+)+y"))
response = "a" * 1_000_000 + "!"
grades = evaluate_expects(expects, RunRecord(final_response=response))
print(json.dumps([g.passed for g in grades]))
"""


def test_catastrophic_regex_on_a_1mb_response_finishes() -> None:
    """Backtracking bombs are linear in RE2; a hang guard, not a timing assertion."""
    done = subprocess.run(
        [sys.executable, "-c", CATASTROPHIC],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == [False, False, False]


def test_terminal_sequences_cannot_repaint_or_forge_a_pass(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """ESC, carriage returns and bidi overrides in a response are shown escaped."""
    hostile = "\x1b[2J\x1b[H\r✓ all good\u202e"
    turns = [{"user_input": "hi", "steps": [text_step(hostile)]}]
    path = write_fixture(
        "a.json",
        echo_trace(
            model_name="evil\r✓ forged", turns=turns, expects={"response_contains": ["nope"]}
        ),
    )
    assert main(["run", "--suite", str(path.parent)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\r" not in out
    assert "\u202e" not in out
    assert "evil\\r✓ forged" in out
    assert all(not line.startswith("✓") for line in out.splitlines())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("api_key=abcd1234efgh", "api_key=abcd" + MARK),
        ('{"password": "hunter22"}', '{"password": "hunt' + MARK + '"}'),
        ("Authorization: Bearer abcdefghijklmnop", "Authorization: Bearer abcd" + MARK),
        ("use sk-proj-abcdefghijklmnopqrstuvwx123 now", "use sk-p" + MARK + " now"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIA" + MARK),
        (
            "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----" + MARK,
        ),
        ("the keyboard and passport are fine", "the keyboard and passport are fine"),
        ("token: short", "token: short"),
    ],
)
def test_redaction_patterns(text: str, expected: str) -> None:
    """Each credential keeps its first four characters and gets the mark; prose is untouched."""
    assert redact(text) == expected


SECRET = "sk-proj-Q7x9mZ2vL4pT8wR1nB6yK3dF5sJ0gH"
LEAKY_TOOLS = f"""
from harness import ToolOutput

class Leaky:
    name = "leaky"
    description = "prints a config"
    parameters = {{"type": "object"}}

    def call(self, arguments):
        return ToolOutput(text="config: api_key={SECRET} region=eu")

def tools():
    return [Leaky()]
"""


def test_a_secret_in_a_tool_result_reaches_no_artifact(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Table, JSON, JUnit, job summary and history all get the redacted text."""
    (tmp_path / "leaky_tools.py").write_text(LEAKY_TOOLS)
    monkeypatch.chdir(tmp_path)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    turns = [
        {
            "user_input": "show the config",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [{"id": "c1", "name": "leaky", "arguments": {}}],
                    }
                },
                text_step("done"),
            ],
        }
    ]
    expects = {"tool_results_contain": [{"tool": "leaky", "needle": "region=nowhere"}]}
    write_fixture("a.json", echo_trace(model_name="leak", turns=turns, expects=expects))
    out = tmp_path / "out"
    argv = [
        "run",
        "--suite",
        "suite",
        "--tools",
        "leaky_tools:tools",
        "--json",
        str(out / "r.json"),
    ]
    argv += ["--junit", str(out / "r.xml"), "--history", str(out / "h.sqlite")]
    assert main(argv) == 1
    shown = capsys.readouterr().out
    history = (out / "h.sqlite").read_bytes()
    for text in (
        shown,
        (out / "r.json").read_text(),
        (out / "r.xml").read_text(),
        summary.read_text(),
    ):
        assert SECRET not in text
        assert SECRET[:4] + MARK in text or "sk-p" + MARK.replace('"', "") in text
    assert SECRET.encode() not in history


def test_a_100mb_tool_result_is_graded_whole_and_reported_bounded(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Grading sees all of it (a needle at the very end is found); reports stay bounded."""
    (tmp_path / "huge_tools.py").write_text(
        "from harness import ToolOutput\n"
        "class Huge:\n"
        "    name, description, parameters = 'huge', 'a lot', {'type': 'object'}\n"
        "    def call(self, arguments):\n"
        "        return ToolOutput(text='x' * 100_000_000 + 'END')\n"
        "def tools():\n"
        "    return [Huge()]\n"
    )
    monkeypatch.chdir(tmp_path)
    turns: list[dict[str, Any]] = [
        {
            "user_input": "go",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [{"id": "c1", "name": "huge", "arguments": {}}],
                    }
                },
                text_step("done"),
            ],
        }
    ]
    expects = {"tool_results_contain": [{"tool": "huge", "needle": "END", "call_index": 0}]}
    write_fixture("a.json", echo_trace(model_name="huge", turns=turns, expects=expects))
    report = tmp_path / "r.json"
    assert (
        main(["run", "--suite", "suite", "--tools", "huge_tools:tools", "--json", str(report)]) == 0
    )
    capsys.readouterr()
    assert report.stat().st_size < 2 * RECORD_LIMIT
    (case,) = json.loads(report.read_text())["cases"]
    assert case["passed"] is True
    assert case["tool_calls"][0]["result"].endswith("…[truncated 99000003 chars]")


@pytest.fixture
def grown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 5000-byte fixture whose fstat still says 100 bytes, as if it grew while read."""
    path = tmp_path / "grows.json"
    path.write_bytes(b"x" * 5000)
    real = os.fstat

    def stale(fd: int) -> os.stat_result:
        info = real(fd)
        return os.stat_result((*info[:6], 100, *info[7:10]))

    monkeypatch.setattr(os, "fstat", stale)
    return path


def test_fixture_growing_while_read_is_read_whole(grown: Path) -> None:
    """A file longer than its stat said (it grew) is read to its end, not cut at the old size."""
    assert read_fixture(str(grown), max_bytes=10_000) == b"x" * 5000


def test_fixture_growing_past_the_bound_is_refused(grown: Path) -> None:
    """Growth is read only one byte past max_fixture_bytes, then refused."""
    with pytest.raises(FixtureError, match="is 1001 bytes, over the 1000-byte limit"):
        read_fixture(str(grown), max_bytes=1000)

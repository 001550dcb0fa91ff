"""End to end through `harness._cli.main.main` on real fixture files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness._cli.commands.run import LIVE_MODE_MESSAGE
from harness._cli.main import COMMANDS, main
from tests.builders import echo_trace, text_step
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]


def test_run_prints_the_table_and_exits_zero(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A green suite prints one row per case and exits 0."""
    path = write_fixture("echo.json", echo_trace())
    assert main(["run", "--suite", str(path.parent)]) == 0
    out = capsys.readouterr().out
    assert "✓" in out
    assert "single-tool-echo" in out
    assert re.search(r"\n1 passed in [0-9.]+s$", out.rstrip())


def test_failing_case_exits_one(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failed check makes the run exit 1 and shows the check."""
    path = write_fixture("echo.json", echo_trace(expects={"response_contains": ["goodbye"]}))
    assert main(["run", "--suite", str(path.parent)]) == 1
    assert '✗ response_contains("goodbye"): not found in response' in capsys.readouterr().out


def test_errored_case_exits_one_and_others_still_pass(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """An over-specified turn errors its case only."""
    write_fixture("a.json", echo_trace(model_name="good"))
    turns = [{"user_input": "hi", "steps": [text_step("hello"), text_step("extra")]}]
    path = write_fixture("b.json", echo_trace(model_name="over", turns=turns))
    assert main(["run", "--suite", str(path.parent), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [(c["name"], c["passed"]) for c in doc["cases"]] == [("good", True), ("over", False)]
    assert "over-specifies this turn's LLM round-trips" in doc["cases"][1]["error"]


def test_rejected_fixture_exits_two_with_one_line(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad fixture gives one stderr line naming file and place, and no traceback."""
    path = write_fixture("bad.json", echo_trace(expects={"tools_used": [""]}))
    assert main(["run", "--suite", str(path.parent)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f'harness: {path}: $.expects.tools_used[0]: declares a zero-length entry in "tools_used"\n'
    )


def test_live_mode_exits_two_before_reading_the_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Phase 0 refuses live mode without touching the (here missing) suite."""
    assert main(["run", "--mode", "live", "--suite", str(tmp_path / "absent")]) == 2
    assert capsys.readouterr().err == f"harness: {LIVE_MODE_MESSAGE}\n"


def test_live_mode_from_config_is_refused_too(
    write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """mode = "live" in config is refused the same way."""
    write_fixture("a.json", echo_trace())
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.harness]\nsuite_dir = "suite"\nmode = "live"\n')
    assert main(["run", "--config", str(config)]) == 2
    assert LIVE_MODE_MESSAGE in capsys.readouterr().err


def test_flags_override_config(
    write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--suite and --mode win over [tool.harness]."""
    path = write_fixture("a.json", echo_trace())
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.harness]\nsuite_dir = "elsewhere"\nmode = "live"\n')
    assert (
        main(["run", "--config", str(config), "--suite", str(path.parent), "--mode", "replay"]) == 0
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["run", "--bogus"], "unrecognized arguments: --bogus"),
        ([], "the following arguments are required: COMMAND"),
        (
            ["bogus"],
            "invalid choice: 'bogus' (choose from "
            "'init', 'run', 'record', 'check', 'merge', 'report', 'trend', 'history', 'schema')",
        ),
    ],
)
def test_bad_usage_is_one_line_and_exit_two(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse errors are one line, exit 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err


def test_json_artifact_is_written(write_fixture: WriteFixture, tmp_path: Path) -> None:
    """--json writes the report, creating parent folders."""
    path = write_fixture("a.json", echo_trace())
    out = tmp_path / "artifacts" / "deep" / "report.json"
    assert main(["run", "--suite", str(path.parent), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["all_passed"] is True
    assert doc["cases"][0]["source"] == str(path)


def test_python_dash_m_runs_the_regression_suite() -> None:
    """`python -m harness run` from the repo root replays the configured default suite."""
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "evals/regression/single_tool_echo.json" in done.stdout


def test_json_to_a_text_only_stdout(write_fixture: WriteFixture) -> None:
    """Embedding main() with stdout redirected to a StringIO still gets the JSON report."""
    import io
    from contextlib import redirect_stdout

    path = write_fixture("a.json", echo_trace())
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["run", "--suite", str(path.parent), "--format", "json"]) == 0
    assert json.loads(out.getvalue())["all_passed"] is True


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    """`harness --help` builds every subcommand, though a run builds only its own."""
    assert main(["--help"]) == 0
    listed = capsys.readouterr().out
    for command in COMMANDS:
        assert f"    {command} " in listed


def test_version_names_the_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    """`harness --version` prints `replay-harness X`, the name pyproject.toml publishes."""
    import tomllib

    from harness.version import DISTRIBUTION, __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"replay-harness {__version__}"
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert pyproject["project"]["name"] == DISTRIBUTION == "replay-harness"
    assert pyproject["project"]["scripts"] == {"harness": "harness._cli.main:main"}

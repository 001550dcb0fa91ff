"""Argument types and output paths, as users meet them: one line and exit 2 for a value that
says nothing, and no output may name what is not its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._cli.main import main
from tests.builders import echo_trace


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--agent-command", ""],
        ["run", "--agent-command", "   "],
        ["run", "--agent", ""],
        ["run", "--tools", ""],
        ["record", "--agent-command", "", "--out", "x.json", "hi"],
        ["check", "--agent", ""],
        ["init", "--agent-command", ""],
    ],
    ids=["run-command", "run-blank", "run-agent", "run-tools", "record", "check", "init"],
)
def test_an_empty_agent_or_tools_is_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty value (an unset CI variable) is refused, never taken as no agent at all."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "expected a value, got an empty string" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "0", "-1", "1e300"])
def test_an_unbounded_case_timeout_is_refused(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--case-timeout inf` would mean no timeout at all: refused, naming the flag."""
    assert main(["run", f"--case-timeout={value}"]) == 2
    err = capsys.readouterr().err
    assert "argument --case-timeout: expected a number of seconds > 0 and <= 1000000" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["trend", "--last", "99999999999999999999"],
        ["trend", "--last", "9" * 5000],
        ["run", "--jobs", "99999999999999999999"],
    ],
    ids=["last-past-sqlite", "last-5000-digits", "jobs"],
)
def test_a_count_past_the_bound_is_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A count SQLite (or the machine) cannot hold is one line naming the bound."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "expected a whole number from 1 to 1000000" in err
    assert len(err.splitlines()) == 1
    assert len(err) < 300


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--suite", "su\x00ite"],
        ["run", "su\x00ite/a.json"],
        ["check", "--suite", "su\x00ite"],
    ],
    ids=["run-suite", "run-path", "check-suite"],
)
def test_a_nul_in_a_suite_path_is_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A path no system call can open is one line naming the flag, not a ValueError."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "a path cannot contain a NUL character" in err
    assert len(err.splitlines()) == 1


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder: a config, a suite with one fixture, an agent's source."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.harness]\nsuite_dir = "evals/regression"\nhistory = ".harness/history.sqlite"\n'
    )
    suite = tmp_path / "evals" / "regression"
    suite.mkdir(parents=True)
    (suite / "a.json").write_text(json.dumps(echo_trace(model_name="a")))
    (tmp_path / "my_agent.py").write_text("def factory(context):\n    return None\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    history = tmp_path / ".harness"
    history.mkdir()
    (history / "history.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 84)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.parametrize(
    ("flags", "err"),
    [
        (["--json", "pyproject.toml"], "--json pyproject.toml: it is the config, which no output replaces"),  # noqa: E501
        (["--junit", "evals/regression/a.json"], "--junit evals/regression/a.json: it exists and is not a JUnit XML report"),  # noqa: E501
        (["--json", "evals/regression/report.json"], "--json evals/regression/report.json: the next run would read it as a fixture of the suite"),  # noqa: E501
        (["--dump-records", "evals/regression"], "--dump-records evals/regression: the next run would read it as a fixture"),  # noqa: E501
        (["--json", "my_agent.py"], "--json my_agent.py: it exists and is not a harness JSON report"),  # noqa: E501
        (["--html", "my_agent.py"], "--html my_agent.py: it exists and is not a harness HTML page"),
        (["--junit", "pkg/__init__.py"], "--junit pkg/__init__.py: it exists and is not a JUnit XML report"),  # noqa: E501
        (["--write-baseline", ".harness/history.sqlite"], "--write-baseline .harness/history.sqlite: it is the history database, which no output replaces"),  # noqa: E501
        (["--junit", ".harness/new.sqlite", "--history", ".harness/new.sqlite"], "--junit .harness/new.sqlite: it is the history database, which no output replaces"),  # noqa: E501
        (["--json", ".harness/last-failed.json"], "--json .harness/last-failed.json: it is the last-failed cache, which no output replaces"),  # noqa: E501
        (["--json", "new.toml", "--config", "new.toml"], "--json new.toml: it is the config, which no output replaces"),  # noqa: E501
    ],
    ids=["config", "fixture", "into-suite", "dump-into-suite", "agent-source", "html-on-source", "empty-init", "history", "new-history", "cache", "new-config"],  # noqa: E501
)  # fmt: skip
def test_an_output_naming_what_is_not_its_own_is_refused_before_the_run(
    project: Path, capsys: pytest.CaptureFixture[str], flags: list[str], err: str
) -> None:
    """Exit 2, one line naming the flag, the path and why; no file changed or created."""
    if "--config" in flags:
        (project / "new.toml").write_text("")
    before = _snapshot(project)
    assert main(["run", *flags]) == 2
    out = capsys.readouterr()
    assert out.err.startswith(f"harness: {err}")
    assert out.err.count("\n") == 1
    assert out.out == ""
    assert _snapshot(project) == before


def test_an_earlier_report_of_the_same_kind_is_replaced(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report's own earlier file, or an empty one, is replaced as before."""
    (project / "empty.xml").write_text("")
    assert main(["run", "--json", "r.json", "--junit", "empty.xml"]) == 0
    assert main(["run", "--json", "r.json", "--junit", "empty.xml"]) == 0
    assert json.loads((project / "r.json").read_text())["all_passed"] is True
    assert (project / "empty.xml").read_text().startswith("<?xml")


def test_a_toml_file_not_the_config_is_not_replaced(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another project's config: not a report, so refused, named as such."""
    other = project / "other.toml"
    other.write_text("[project]\nname = 'x'\n")
    assert main(["run", "--json", str(other)]) == 2
    assert "it exists and is not a harness JSON report" in capsys.readouterr().err
    assert other.read_text() == "[project]\nname = 'x'\n"

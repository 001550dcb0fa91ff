"""Shared argument types, as users meet them: one line and exit 2 for a value that says nothing."""

from __future__ import annotations

import pytest

from harness._cli.main import main


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

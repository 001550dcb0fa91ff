"""`harness run` focus: `-k`, fixture paths, `-x` and `--last-failed`, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._cli.main import main
from tests.builders import echo_trace
from tests.conftest import WriteFixture

FAILING = {"response_contains": ["nope"]}


@pytest.fixture
def suite(write_fixture: WriteFixture) -> Path:
    """Five cases: two fail (alpha-bad, gamma-bad), three pass."""
    write_fixture("a_alpha.json", echo_trace(model_name="alpha-good"))
    write_fixture("b_alpha.json", echo_trace(model_name="alpha-bad", expects=FAILING))
    write_fixture("c_beta.json", echo_trace(model_name="beta-good"))
    write_fixture("d_gamma.json", echo_trace(model_name="gamma-bad", expects=FAILING))
    return write_fixture("e_gamma.json", echo_trace(model_name="gamma-good")).parent


@pytest.fixture
def config(tmp_path: Path) -> str:
    """A pyproject.toml whose history (and so the last-failed cache) is inside tmp_path."""
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.harness]\nhistory = "state/history.sqlite"\n')
    return str(path)


def ran(tmp_path: Path, *argv: str) -> tuple[int, dict[str, object]]:
    """Run `harness run ARGV --json REPORT`; the exit status and the JSON report."""
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    status = main(["run", *argv, "--json", str(report)])
    return status, json.loads(report.read_text()) if report.exists() else {}


def names(document: dict[str, object]) -> list[str]:
    cases = document["cases"]
    assert isinstance(cases, list)
    return [case["name"] for case in cases]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("alpha", ["alpha-good", "alpha-bad"]),
        ("ALPHA", ["alpha-good", "alpha-bad"]),
        ("not alpha", ["beta-good", "gamma-bad", "gamma-good"]),
        ("good and not beta", ["alpha-good", "gamma-good"]),
        ("beta or bad", ["alpha-bad", "beta-good", "gamma-bad"]),
        ("(alpha or gamma) and bad", ["alpha-bad", "gamma-bad"]),
        ("not (alpha or gamma)", ["beta-good"]),
        ("alpha or beta and bad", ["alpha-good", "alpha-bad"]),  # and binds tighter
        ("c_beta.json", ["beta-good"]),  # the fixture path counts too
    ],
)
def test_keyword_selects_by_name_or_path(
    suite: Path, config: str, tmp_path: Path, expression: str, expected: list[str]
) -> None:
    """`-k` picks exactly the cases its expression matches, and the report says so."""
    _, document = ran(tmp_path, "--suite", str(suite), "--config", config, "-k", expression)
    assert names(document) == expected
    assert document["selection"] == f"-k {expression!r}"


@pytest.mark.parametrize("expression", ["", "alpha and", "(alpha", "or beta", "alpha )"])
def test_a_malformed_keyword_exits_2_with_one_line(
    suite: Path, config: str, expression: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad `-k` is a usage error naming the expression, never a traceback."""
    assert main(["run", "--suite", str(suite), "--config", config, "-k", expression]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: -k {expression!r}: ")
    assert len(err.splitlines()) == 1


def test_an_empty_selection_exits_2(
    suite: Path, config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Selecting no case never makes a passing run: exit 2, one clear line, no report."""
    status, document = ran(tmp_path, "--suite", str(suite), "--config", config, "-k", "zeta")
    assert (status, document) == (2, {})
    assert "selects none of the suite's 5 case(s)" in capsys.readouterr().err


def test_positional_files_and_folders(suite: Path, config: str, tmp_path: Path) -> None:
    """Fixture files run just those cases; the suite folder runs them all, unselected."""
    files = [str(suite / "c_beta.json"), str(suite / "a_alpha.json")]
    status, document = ran(tmp_path, *files, "--config", config)
    assert (status, names(document)) == (0, ["alpha-good", "beta-good"])
    assert document["selection"] == " ".join(files)
    status, document = ran(tmp_path, str(suite), "--config", config)
    assert (status, len(names(document)), document["selection"]) == (1, 5, None)
    _, document = ran(tmp_path, str(suite / "d_gamma.json"), "--suite", str(suite), "-k", "good")
    assert document == {}  # the one file chosen is not a "good" case: nothing to run


def test_positional_paths_that_are_not_of_the_suite_exit_2(
    suite: Path, config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing file, a non-fixture, and paths from two folders are each refused."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.json").write_text(json.dumps(echo_trace(model_name="x")))
    for argv, said in [
        ([str(suite / "nope.json")], "no such fixture file"),
        ([str(suite / "a_alpha.txt")], "not a fixture file (*.json)"),
        ([str(suite / "a_alpha.json"), str(other / "x.json")], "more than one suite folder"),
        ([str(other / "x.json"), "--suite", str(suite)], "not in the suite folder"),
    ]:
        assert main(["run", *argv, "--config", config]) == 2
        assert said in capsys.readouterr().err


def test_exitfirst_stops_at_the_first_failure_and_says_so(
    suite: Path, config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`-x` runs up to the first failing case; table, JSON and JUnit say it stopped early."""
    junit = tmp_path / "report.xml"
    argv = ["--suite", str(suite), "--config", config, "-x", "--junit", str(junit)]
    status, document = ran(tmp_path, *argv)
    assert (status, names(document)) == (1, ["alpha-good", "alpha-bad"])
    assert document["stopped_early"] is True
    assert 'name="stopped_early"' in junit.read_text()
    assert "stopped at the first failed or errored case (--exitfirst)" in capsys.readouterr().out
    _, document = ran(tmp_path, "--suite", str(suite), "--config", config, "-x", "-k", "good")
    assert (len(names(document)), document["stopped_early"]) == (3, False)


def test_exitfirst_under_jobs_stops_too(suite: Path, config: str, tmp_path: Path) -> None:
    """With worker processes, the run still ends at the first failure, in suite order."""
    argv = ["--suite", str(suite), "--config", config, "-x", "--jobs", "2"]
    argv += ["--agent", "tests.agents:sync_agent"]  # the project's own code: workers
    _, document = ran(tmp_path, *argv)
    assert names(document) == ["alpha-good", "alpha-bad"]
    assert document["stopped_early"] is True


def test_last_failed_reruns_what_failed(
    suite: Path, config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No previous run: everything, said so. Then only the failures, until they are fixed."""
    base = ["--suite", str(suite), "--config", config]
    status, document = ran(tmp_path, *base, "--lf")
    assert (status, len(names(document)), document["selection"]) == (1, 5, None)
    assert "--last-failed: no previous run of" in capsys.readouterr().err
    assert (tmp_path / "state" / "last-failed.json").exists()
    status, document = ran(tmp_path, *base, "--last-failed")
    assert (status, names(document)) == (1, ["alpha-bad", "gamma-bad"])
    assert document["selection"] == "--last-failed"
    (suite / "b_alpha.json").write_text(json.dumps(echo_trace(model_name="alpha-bad")))
    ran(tmp_path, *base, "-k", "alpha")  # a selected run keeps the failures it did not rerun
    _, document = ran(tmp_path, *base, "--lf")
    assert names(document) == ["gamma-bad"]
    (suite / "d_gamma.json").write_text(json.dumps(echo_trace(model_name="gamma-bad")))
    ran(tmp_path, *base, "--lf")
    status, document = ran(tmp_path, *base, "--lf")
    assert (status, len(names(document))) == (0, 5)
    assert "every case passed in the previous run" in capsys.readouterr().err


def test_a_selected_run_is_not_recorded_in_the_history(
    suite: Path, config: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A partial run would skew the trend: it is said, and the history stays empty."""
    history = tmp_path / "h.sqlite"
    argv = ["run", "--suite", str(suite), "--config", config, "-k", "good"]
    assert main([*argv, "--history", str(history)]) == 0
    assert "--history: this run is not recorded (a selection)" in capsys.readouterr().err
    assert not history.exists()


@pytest.mark.parametrize(
    "expression",
    ["(" * 5000 + "alpha" + ")" * 5000, "not " * 5000 + "alpha"],
    ids=["parentheses", "nots"],
)
def test_a_deeply_nested_keyword_exits_2_with_one_line(
    suite: Path, config: str, expression: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """5,000 levels of nesting are refused by name, never a RecursionError traceback."""
    assert main(["run", "--suite", str(suite), "--config", config, "-k", expression]) == 2
    err = capsys.readouterr().err
    assert "nest more than 100 deep" in err
    assert len(err.splitlines()) == 1
    assert len(err) < 300


def test_a_skipped_case_neither_stops_exitfirst_nor_joins_the_last_failed(
    write_fixture: WriteFixture, config: str, tmp_path: Path
) -> None:
    """Skipped is no failure: `-x` runs past it, and `--lf` reruns only what failed."""
    write_fixture("a_later.json", {**echo_trace(model_name="later"), "skip": "not yet"})
    write_fixture("b_bad.json", echo_trace(model_name="bad", expects=FAILING))
    suite = write_fixture("c_good.json", echo_trace(model_name="good")).parent
    base = ["--suite", str(suite), "--config", config]
    status, document = ran(tmp_path, *base, "-x")
    assert (status, names(document)) == (1, ["later", "bad"])
    status, document = ran(tmp_path, *base, "--lf")
    assert (status, names(document)) == (1, ["bad"])

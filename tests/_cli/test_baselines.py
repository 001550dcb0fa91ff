"""`harness run --baseline`: only a failure the baseline holds is excused; a baseline of
another run, or one that cannot be read as one, is refused with one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from tests.builders import echo_trace


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A suite named `suite`: one passing case, one failing case (`red`)."""
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "green.json").write_text(json.dumps(echo_trace(model_name="green")))
    red = echo_trace(model_name="red", expects={"response_contains": ["never said"]})
    (folder / "red.json").write_text(json.dumps(red))
    return folder


def _baseline(tmp_path: Path, suite: Path) -> dict[str, Any]:
    """The baseline the suite writes of itself (red: `fail`)."""
    path = tmp_path / "written.json"
    assert main(["run", "--suite", str(suite), "--write-baseline", str(path)]) == 1
    written: dict[str, Any] = json.loads(path.read_text())
    return written


def _run(tmp_path: Path, suite: Path, baseline: dict[str, Any] | str) -> int:
    path = tmp_path / "baseline.json"
    path.write_text(baseline if isinstance(baseline, str) else json.dumps(baseline))
    return main(["run", "--suite", str(suite), "--baseline", str(path)])


def test_the_same_failure_of_the_same_fixture_is_excused(suite: Path, tmp_path: Path) -> None:
    """The one thing a baseline excuses: its own `fail` verdict, same id, same hash."""
    assert _run(tmp_path, suite, _baseline(tmp_path, suite)) == 0


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda case: case.update(case_hash="sha256:" + "0" * 64), id="forged-hash"),
        pytest.param(lambda case: case.update(verdict="skipped"), id="skipped"),
        pytest.param(lambda case: case.update(verdict="pass"), id="regressed"),
        pytest.param(lambda case: case.update(id="another"), id="other-id"),
    ],
)
def test_a_failure_the_baseline_does_not_hold_gates(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Any
) -> None:
    """A forged hash, a `skipped` verdict, a pass or another id never excuses a failure."""
    baseline = _baseline(tmp_path, suite)
    for case in baseline["cases"]:
        if case["id"] == "red":
            edit(case)
    capsys.readouterr()
    assert _run(tmp_path, suite, baseline) == 1
    assert "red" in capsys.readouterr().out.splitlines()[-1]


@pytest.mark.parametrize("cases", [[], [{"id": "x", "case_hash": "sha256:1", "verdict": "fail"}]])
def test_a_baseline_that_compares_no_case_leaves_the_runs_status(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], cases: list[Any]
) -> None:
    """No case in common: the run's own failure gates, and the run says nothing was compared."""
    baseline = {**_baseline(tmp_path, suite), "cases": cases}
    capsys.readouterr()
    assert _run(tmp_path, suite, baseline) == 1
    assert "no case of this run is in the baseline" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("field", "value"),
    [("suite", "capability"), ("mode", "live"), ("tool_surface", "sha256:" + "f" * 64)],
)
def test_a_baseline_of_another_run_is_refused(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: str
) -> None:
    """Another suite, mode or tool surface: exit 2, one line naming the file and the field."""
    baseline = {**_baseline(tmp_path, suite), field: value}
    capsys.readouterr()
    assert _run(tmp_path, suite, baseline) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: {tmp_path / 'baseline.json'}: a baseline of another run: ")
    assert f'{field} is "{value}"' in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [("suite", "capability"), ("mode", "live"), ("tool_surface", "sha256:" + "f" * 64)],
)
def test_a_baseline_of_another_run_is_refused_before_the_run(
    suite: Path, tmp_path: Path, field: str, value: str
) -> None:
    """Suite, mode and tool surface are known before the run: no report is written when one
    differs."""
    baseline = {**_baseline(tmp_path, suite), field: value}
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(baseline))
    report = tmp_path / "report.json"
    argv = ["run", "--suite", str(suite), "--baseline", str(path), "--json", str(report)]
    assert main(argv) == 2
    assert not report.exists()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param(
            '{"schema": "harness/baseline/v1", "suite": "suite", "mode": "replay",'
            ' "tool_surface": "", "cases": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "not a harness baseline: ",
            id="deep",
        ),
        pytest.param(
            '{"schema": "harness/baseline/v1", "suite": "suite", "suite": "suite",'
            ' "mode": "replay", "tool_surface": "", "cases": []}',
            '$: key "suite" appears twice',
            id="duplicate-key",
        ),
        pytest.param(
            '{"schema": "harness/baseline/v1", "suite": "suite", "mode": "replay",'
            ' "tool_surface": "", "cases": [{"id": "red", "case_hash": "h", "verdict": "fail",'
            ' "verdict": "pass"}]}',
            '$.cases[0]: key "verdict" appears twice',
            id="duplicate-verdict",
        ),
    ],
)
def test_a_malformed_baseline_is_one_line(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    """Nested 100,000 deep or a key written twice: exit 2, one line, no traceback."""
    assert _run(tmp_path, suite, text) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: {tmp_path / 'baseline.json'}: ")
    assert reason in err
    assert err.count("\n") == 1

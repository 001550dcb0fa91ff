"""`harness run` on a suite held by reference gives the verdicts of the suite held whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from harness.fixtures import catalog
from tests.builders import echo_trace, text_step
from tests.conftest import WriteFixture


@pytest.fixture
def suite(write_fixture: WriteFixture) -> Path:
    """Twelve cases: passing, failing, errored (a turn scripted twice) and one skipped."""
    for i in range(12):
        changes: dict[str, Any] = {
            "model_name": f"case-{i:02d}",
            "expects": {"response_contains": ["nope" if i % 3 == 1 else "hello"]},
        }
        if i % 5 == 4:
            changes["turns"] = [
                {"user_input": "hi", "steps": [text_step("hello"), text_step("extra")]}
            ]
        if i == 7:
            changes["skip"] = "not today"
        path = write_fixture(f"c{i:02d}.json", echo_trace(**changes))
    return path.parent


def _run(tmp_path: Path, hold_max: int, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(catalog, "HOLD_MAX", hold_max)
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    status = main(["run", *argv, "--json", str(report)])
    cases = json.loads(report.read_text())["cases"]
    return status, [(c["name"], c["passed"], c["error"], c.get("case_hash")) for c in cases]


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["-k", "case-03 or case-1"],
        ["--shard", "2/3"],
        ["-x"],
        ["--jobs", "2"],
        ["--jobs", "2", "--tools", "tests.agents:upper_tools"],
    ],
    ids=["all", "-k", "shard", "-x", "jobs", "supervised"],
)
def test_the_verdicts_are_those_of_the_suite_held_whole(
    suite: Path, tmp_path: Path, extra: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import harness.pipeline.dispatch as pipeline_suite

    monkeypatch.setattr(pipeline_suite, "PARALLEL_MIN", 2)  # --jobs 2 starts its workers
    argv = ["--suite", str(suite), *extra]
    held = _run(tmp_path, 10_000, argv, monkeypatch)
    listed = _run(tmp_path, 1, argv, monkeypatch)
    assert listed == held
    assert held[0] == 1  # a case failed or errored in each
    assert held[1]


def test_last_failed_picks_the_same_cases(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.harness]\nhistory = "state/history.sqlite"\n')
    argv = ["--suite", str(suite), "--config", str(config)]
    first = _run(tmp_path, 1, argv, monkeypatch)  # fills the last-failed cache
    failed = [name for name, passed, _, _ in first[1] if not passed]
    held = _run(tmp_path, 10_000, [*argv, "--lf"], monkeypatch)
    listed = _run(tmp_path, 1, [*argv, "--lf"], monkeypatch)
    assert listed == held
    assert [name for name, _, _, _ in held[1]] == failed


def test_a_fixture_changed_while_the_suite_runs_fails_the_run(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edited after the load, before its turn: the case errors and the run exits 1."""
    import harness.pipeline.case as pipeline_case

    real = pipeline_case.run_case
    target = suite / "c11.json"

    def edit_then_run(case: Any, setup: Any) -> Any:
        if case.name == "case-00":  # the last case is edited while an earlier one runs
            target.write_text(json.dumps(echo_trace(model_name="case-11")))
        return real(case, setup)

    monkeypatch.setattr(pipeline_case, "run_case", edit_then_run)
    status, cases = _run(
        tmp_path, 1, ["--suite", str(suite), "-k", "case-00 or case-11"], monkeypatch
    )
    assert status == 1
    assert cases[0][:3] == ("case-00", True, None)
    assert cases[1][0] == "case-11"
    assert not cases[1][1]
    assert str(cases[1][2]).startswith("fixture changed since the suite was loaded")

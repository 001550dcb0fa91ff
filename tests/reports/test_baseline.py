"""Baselines: written after a clean run, then the exit status of a run compared with them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from tests.builders import echo_trace


def _write(suite: Path, name: str, trace: dict[str, Any]) -> None:
    (suite / f"{name}.json").write_text(json.dumps(trace))


def _failing(name: str) -> dict[str, Any]:
    return echo_trace(model_name=name, expects={"response_contains": ["never said"]})


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    _write(folder, "steady", echo_trace(model_name="steady"))
    _write(folder, "to_break", echo_trace(model_name="to-break"))
    _write(folder, "to_change", echo_trace(model_name="to-change"))
    _write(folder, "already_failing", _failing("already-failing"))
    return folder


def test_the_baseline_round_trip(
    suite: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a confirmed pass→fail flip gates; changed, new and still-failing cases do not."""
    baseline = tmp_path / "baseline.json"
    assert main(["run", "--suite", str(suite), "--write-baseline", str(baseline)]) == 1
    written = json.loads(baseline.read_text())
    assert written["schema"] == "harness/baseline/v1"
    assert written["mode"] == "replay"
    assert written["tool_surface"].startswith("sha256:")
    verdicts = {case["id"]: case["verdict"] for case in written["cases"]}
    assert verdicts == {
        "already_failing": "fail",
        "steady": "pass",
        "to_break": "pass",
        "to_change": "pass",
    }
    capsys.readouterr()

    # against itself: fail→fail does not gate
    assert main(["run", "--suite", str(suite), "--baseline", str(baseline)]) == 0
    assert "baseline: no case flipped" in capsys.readouterr().out

    # a changed fixture (a new hash) that now fails: "changed", exit 0
    _write(suite, "to_change", _failing("to-change"))
    _write(suite, "brand_new", _failing("brand-new"))
    assert main(["run", "--suite", str(suite), "--baseline", str(baseline)]) == 0
    out = capsys.readouterr().out
    assert "changed, refresh the baseline (fixture differs; not gated): to-change" in out
    assert "1 new (not in the baseline): brand-new" in out

    # an agent regression: the fixture is untouched (same hash) and its case now fails
    (tmp_path / "baseline_breaking_agent.py").write_text(BREAKING_AGENT)
    monkeypatch.chdir(tmp_path)
    junit = tmp_path / "flips.xml"
    argv = ["run", "--suite", str(suite), "--baseline", str(baseline), "--junit", str(junit)]
    assert main([*argv, "--agent", "baseline_breaking_agent:factory"]) == 1
    out = capsys.readouterr().out
    assert "1 REGRESSED (passed in the baseline, fails now): to-break" in out
    cases = {case.get("name"): case for case in ET.parse(junit).getroot().iter("testcase")}
    broken = cases["to-break"]
    failure = broken.find("failure")
    assert failure is not None
    assert failure.get("message", "").startswith("REGRESSED since the baseline: ")
    assert broken.findtext("system-err") == (
        "baseline: REGRESSED: passed in the baseline, fails now (gates)"
    )
    assert cases["to-change"].findtext("system-err", "").startswith("baseline: changed")
    assert cases["steady"].find("system-err") is None


BREAKING_AGENT = """
from harness.replay.agent import ReferenceAgent

class Breaking:
    def __init__(self, context):
        self._agent = ReferenceAgent(context.provider, context.tools)
        self._name = context.case_name

    def turn(self, user_input):
        text = self._agent.turn(user_input)
        return "broken" if self._name == "to-break" else text

def factory(context):
    return Breaking(context)
"""


def test_no_baseline_after_a_run_that_errored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error is not a verdict: the baseline is not written, and the run says so."""
    folder = tmp_path / "suite"
    folder.mkdir()
    trace = echo_trace()
    trace["turns"][0]["steps"].append(trace["turns"][0]["steps"][-1])  # over-specified turn
    _write(folder, "errors", trace)
    baseline = tmp_path / "b.json"
    assert main(["run", "--suite", str(folder), "--write-baseline", str(baseline)]) == 1
    assert not baseline.exists()
    assert "baseline not written: the run had 1 errored case(s)" in capsys.readouterr().err


def test_a_bad_baseline_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One line naming the file, before anything runs."""
    bad = tmp_path / "b.json"
    bad.write_text('{"schema": "other"}')
    assert main(["run", "--baseline", str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"harness: {bad}: not a harness baseline")

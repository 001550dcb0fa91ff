"""The bench (`python -m tests.bench`): it runs, writes its figures and judges its targets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bench.outputs import ARTIFACTS
from tests.bench.peers import scripted_cases
from tests.bench.spawner import Spawner
from tests.bench.synthetic import generate_suite
from tests.bench.targets import verdicts

REPO = Path(__file__).resolve().parent.parent


def test_bench_runs_and_writes_its_figures(tmp_path: Path) -> None:
    """The bench generates suites, measures, prints and writes JSON, the targets last."""
    out = tmp_path / "bench.json"
    small = ["--cases", "30", "--huge", "60", "--sizes", "20", "--repeat", "1"]
    small += ["--slow-cases", "4", "--reuse-cases", "3", "--reuse-start", "0"]
    done = subprocess.run(
        [sys.executable, "-m", "tests.bench", *small, "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "harness run end to end" in done.stdout
    last = done.stdout.rstrip().splitlines()[-4:]
    assert last[0] == "targets"
    assert [line[:3] for line in last[1:]] == ["1. ", "2. ", "3. "]
    assert "60 cases completed" in last[2]
    figures = json.loads(out.read_text())
    assert [(row["mix"], row["fixtures"]) for row in figures["load"]] == [
        ("mix", 20),
        ("mix", 30),
        ("text", 30),
    ]
    assert [(row["mix"], row["jobs"]) for row in figures["run"]] == [
        ("mix", "1"),
        ("mix", "auto"),
        ("mix", "1"),
        ("mix", "auto"),
        ("text", "1"),
    ]
    assert figures["start"]["cases"] == 10
    assert figures["start"]["python_c_pass_s"] > 0
    assert [row["output"] for row in figures["outputs"]][:3] == ["default", "json", ARTIFACTS]
    assert [(row["cases"], row["exit_status"]) for row in figures["memory"]] == [(30, 0), (60, 0)]
    assert [row["agent"] for row in figures["jobs"]] == ["20 ms agent", "echo case"]
    assert [row["cases"] for row in figures["reuse"]["rows"]] == [3, 3]
    assert figures["peers"]["cases"] == 30
    assert figures["peers"][f"harness: {ARTIFACTS}"]["all_cases_s"] > 0


def _results(**changes: Any) -> dict[str, Any]:
    """Figures for `verdicts` that meet every target; `changes` replace whole sections."""
    results: dict[str, Any] = {
        "peers": {
            "cases": 10_000,
            f"harness: {ARTIFACTS}": {"per_case_us": 100.0},
            "pydantic-evals": {"per_case_us": 3_000.0},
        },
        "memory": [
            {"cases": 10_000, "exit_status": 0, "peak_rss_mib": 100.0, "wall_s": 3.0},
            {"cases": 100_000, "exit_status": 0, "peak_rss_mib": 120.0, "wall_s": 30.0},
        ],
        "start": {"cases": 10, "extra_s": 0.1},
    }
    return {**results, **changes}


def _verdict(line: str) -> str:
    return line.rsplit(": ", 1)[1]


def test_targets_met_at_their_bounds() -> None:
    """30x, 249 MiB with the huge run done, and 100 ms are met; each line quotes its figure."""
    memory = _results()["memory"]
    memory[0]["peak_rss_mib"] = 249.9
    lines = verdicts(_results(memory=memory))
    assert [_verdict(line) for line in lines[1:]] == ["met", "met", "met"]
    assert "30.0x faster" in lines[1]
    assert "250 MiB" in lines[2]
    assert "100,000 cases completed" in lines[2]
    assert "100 ms" in lines[3]


@pytest.mark.parametrize(
    ("section", "value", "line"),
    [
        (
            "peers",
            {
                "cases": 10_000,
                f"harness: {ARTIFACTS}": {"per_case_us": 100.0},
                "pydantic-evals": {"per_case_us": 2_990.0},
            },
            1,
        ),
        (
            "memory",
            [{"cases": 10_000, "exit_status": 0, "peak_rss_mib": 250.0, "wall_s": 3.0}] * 2,
            2,
        ),
        (
            "memory",
            [
                {"cases": 10_000, "exit_status": 0, "peak_rss_mib": 100.0, "wall_s": 3.0},
                {"cases": 100_000, "exit_status": -9, "peak_rss_mib": 900.0, "wall_s": 30.0},
            ],
            2,
        ),
        ("start", {"cases": 10, "extra_s": 0.1011}, 3),
    ],
    ids=["slower-than-30x", "250-MiB", "huge-run-killed", "start-101-ms"],
)
def test_a_target_missed_says_not_met(section: str, value: Any, line: int) -> None:
    """A figure past its target's bound turns that target, and only it, to NOT MET."""
    lines = verdicts(_results(**{section: value}))
    assert [_verdict(text) for text in lines[1:]] == [
        "NOT MET" if number == line else "met" for number in (1, 2, 3)
    ]


def test_targets_not_measured_say_so() -> None:
    """Without the peer, or with the huge run skipped, the verdict says what was not run."""
    peers = {"cases": 10_000, f"harness: {ARTIFACTS}": {"per_case_us": 100.0}}
    lines = verdicts(
        _results(peers={**peers, "pydantic-evals": None}, memory=_results()["memory"][:1])
    )
    assert lines[1].endswith(
        "pydantic-evals is not installed (`nox -s bench` installs it): not measured"
    )
    assert lines[2].endswith("met; ten times the cases: not run (--quick)")


def test_the_peer_plays_the_suite_the_harness_runs(tmp_path: Path) -> None:
    """The peer's cases are the suite's fixtures: input, scripted steps and needles each."""
    folder = str(tmp_path / "echo")
    generate_suite(folder, 3, mix="echo")
    cases = scripted_cases(folder)
    assert [name for name, *_ in cases] == ["tool-case-0", "tool-case-1", "tool-case-2"]
    _, user_input, steps, needles = cases[1]
    with open(os.path.join(folder, "case_000001.json"), encoding="utf-8") as file:
        fixture = json.load(file)
    assert user_input == fixture["turns"][0]["user_input"]
    assert [step["type"] for step in steps] == ["tool_calls", "text"]
    assert needles == ["1-0"]
    assert needles[0] in steps[1]["content"]


def test_bench_peak_rss_is_the_child_own() -> None:
    """A run's peak RSS is its own, not the memory of the (large) bench process."""
    ballast = bytearray(128 * 1024 * 1024)
    ballast[::4096] = b"\1" * len(range(0, len(ballast), 4096))  # touch every page
    spawner = Spawner()
    try:
        elapsed, rss_kib = spawner.run([sys.executable, "-c", "pass"])
    finally:
        spawner.close()
    assert elapsed > 0
    assert 0 < rss_kib < 64 * 1024
    assert len(ballast) == 128 * 1024 * 1024


def test_bench_runs_in_its_own_folder_and_refuses_unexpected_exits(tmp_path: Path) -> None:
    """Runs start in the given folder (not a checkout), and an exit outside `ok` stops the bench;
    `attempt` reports any exit instead."""
    folder = os.path.realpath(tmp_path)
    here = f"import os, sys; sys.exit(0 if os.getcwd() == {folder!r} else 3)"
    spawner = Spawner(cwd=str(tmp_path))
    try:
        spawner.run([sys.executable, "-c", here], ok=(0,))
        with pytest.raises(SystemExit, match="exited 1"):
            spawner.run([sys.executable, "-c", "raise SystemExit(1)"], ok=(0,))
        assert spawner.attempt([sys.executable, "-c", "raise SystemExit(5)"])[1] == 5
    finally:
        spawner.close()

"""The reports of this repository's own suites, held byte for byte to known-good copies.

A change of layout, of speed or of a dependency must not change a verdict or an artifact. The
JSON report, the JUnit file and the table of `evals/regression` and `evals/capability`, and
the output of `harness check` over every suite, are compared with the copies in
`tests/data/golden/`, timings (a case's, and each call's start and duration), dates, commits
and versions aside. When a change is meant to
alter them, run the tests with `HARNESS_UPDATE_GOLDEN=1` and review the diff.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "data" / "golden"
VOLATILE = [
    (re.compile(r'"(started_at|git_commit|harness_version)": "[^"]*"'), r'"\1": "-"'),
    (re.compile(r'"git_commit": null'), '"git_commit": "-"'),
    (re.compile(r'"(duration_s|started_s)": [0-9.e-]+'), r'"\1": 0'),
    (re.compile(r'\b(time|timestamp|hostname)="[^"]*"'), r'\1="-"'),
    (re.compile(r'(name="(?:harness_version|git_commit)" value=)"[^"]*"'), r'\1"-"'),
    (re.compile(r"\b(passed|failed|errored|no case ran) in [0-9][0-9.m]*s\b"), r"\1 in -"),
]


def normalised(text: str) -> str:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def compare(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HARNESS_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    assert normalised(actual) == normalised(path.read_text(encoding="utf-8")), name


@pytest.mark.parametrize(("suite", "status"), [("regression", 0), ("capability", 1)])
def test_suite_artifacts_are_unchanged(suite: str, status: int, tmp_path: Path) -> None:
    """The table, JSON report and JUnit file of an evals suite match the known-good copies."""
    json_path, junit_path = tmp_path / "report.json", tmp_path / "report.junit.xml"
    run = harness(
        "run", "--suite", f"evals/{suite}", "--json", str(json_path), "--junit", str(junit_path)
    )
    assert run.returncode == status, run.stderr
    compare(f"{suite}.table.txt", run.stdout)
    compare(f"{suite}.json", json_path.read_text(encoding="utf-8"))
    compare(f"{suite}.junit.xml", junit_path.read_text(encoding="utf-8"))


def test_check_output_is_unchanged() -> None:
    """`harness check` over every suite in evals/ prints what it printed before (the
    capability cases the reference agent cannot do yet are warnings, with `--may-fail`)."""
    suites = sorted(path.name for path in (REPO / "evals").iterdir() if path.is_dir())
    folders = (arg for suite in suites for arg in ("--suite", f"evals/{suite}"))
    run = harness("check", "--may-fail", *folders)
    assert run.returncode == 0, run.stderr
    compare("check.txt", run.stdout + run.stderr)


def test_normalising_keeps_what_matters() -> None:
    """Only timings, dates, hosts, commits and versions are set aside, never a verdict."""
    before = '{"passed": true, "duration_s": 0.5, "started_at": "2026-01-01T00:00:00.000Z"}'
    after = '{"passed": false, "duration_s": 0.7, "started_at": "2026-02-02T00:00:00.000Z"}'
    assert normalised(before) != normalised(after)
    assert normalised(before) == normalised(before.replace("0.5", "0.9"))

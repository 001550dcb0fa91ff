"""The CI templates in ci/: valid, schema-checked, hardened, calling only existing nox sessions."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
GITHUB = REPO / "ci" / "github" / "harness.yml"
GITLAB = REPO / "ci" / "gitlab" / "harness.gitlab-ci.yml"
GITHUB_SHARDED = REPO / "ci" / "github" / "harness-sharded.yml"
GITLAB_SHARDED = REPO / "ci" / "gitlab" / "harness-sharded.gitlab-ci.yml"
TEMPLATES = [GITHUB, GITLAB, GITHUB_SHARDED, GITLAB_SHARDED]
NOX_CALL = re.compile(r"\bnox\b(?P<args>[^\n]*)")
DATA = REPO / "tests" / "data"
PINNED = re.compile(
    r"^\s*(?:- )?uses: (?P<action>[\w-]+/[\w-]+(?:/[\w-]+)*)"
    r"@(?P<sha>[0-9a-f]{40}) # (?P<tag>v\d+\.\d+\.\d+)$"
)
NOT_CANCELLED = "${{ !cancelled() }}"


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
    assert github["merge"]["if"] == NOT_CANCELLED
    gitlab = load(GITLAB_SHARDED)
    assert gitlab["harness-shard"]["parallel"] == 4
    assert gitlab["harness-merge"]["when"] == "always"
    assert (
        gitlab["harness-merge"]["artifacts"]["reports"]["junit"] == "artifacts/regression.junit.xml"
    )


def steps(path: Path) -> list[dict[str, Any]]:
    return [step for job in load(path)["jobs"].values() for step in job["steps"]]


@pytest.mark.parametrize("path", [GITHUB, GITHUB_SHARDED], ids=lambda path: path.name)
def test_github_workflows_are_least_privileged_and_pinned_by_sha(path: Path) -> None:
    """Read-only permissions, fail-fast off, every action pinned by commit SHA, tag beside it."""
    workflow = load(path)
    assert workflow["permissions"] == {"contents": "read"}
    for job in workflow["jobs"].values():
        assert job["strategy"]["fail-fast"] is False
    lines = [line for line in path.read_text().splitlines() if "uses:" in line]
    assert lines
    for line in lines:
        assert PINNED.match(line), line


def test_each_action_is_pinned_to_one_sha_everywhere() -> None:
    """The same action at the same release never points at two commits."""
    pins: dict[str, set[tuple[str, str]]] = {}
    for path in (GITHUB, GITHUB_SHARDED):
        for line in path.read_text().splitlines():
            match = PINNED.match(line)
            if match:
                action = match["action"].split("/")[0] + "/" + match["action"].split("/")[1]
                pins.setdefault(action, set()).add((match["sha"], match["tag"]))
    assert {"actions/checkout", "actions/setup-python", "actions/upload-artifact"} <= set(pins)
    assert all(len(pinned) == 1 for pinned in pins.values()), pins


@pytest.mark.parametrize("path", [GITHUB, GITHUB_SHARDED], ids=lambda path: path.name)
def test_github_uploads_run_unless_cancelled_and_never_always(path: Path) -> None:
    """Artifacts and the history cache are saved after a failure, not after a cancel."""
    saving = [
        step
        for step in steps(path)
        if step.get("uses", "").startswith(("actions/upload-artifact@", "actions/cache/save@"))
    ]
    assert saving
    assert all(step.get("if") == NOT_CANCELLED for step in saving)
    assert "always()" not in path.read_text()


@pytest.mark.parametrize("path", [GITHUB, GITHUB_SHARDED], ids=lambda path: path.name)
def test_github_workflows_cache_pip_and_uv(path: Path) -> None:
    """Every job sets up Python with the pip cache and uv with its cache, keyed on pyproject."""
    for job in load(path)["jobs"].values():
        uses = {step.get("uses", "").split("@")[0]: step for step in job["steps"]}
        python = uses["actions/setup-python"]["with"]
        assert (python["cache"], python["cache-dependency-path"]) == ("pip", "pyproject.toml")
        uv = uses["astral-sh/setup-uv"]["with"]
        assert uv["enable-cache"] is True
        assert uv["cache-dependency-glob"] == "pyproject.toml"


def test_annotations_and_summary_come_from_one_matrix_leg() -> None:
    """HARNESS_GITHUB_REPORT is 1 for exactly one regression leg; shards leave it to merge."""
    regression = load(GITHUB)["jobs"]["regression"]
    flag = regression["env"]["HARNESS_GITHUB_REPORT"]
    chosen = re.fullmatch(r"\$\{\{ matrix\.python-version == '([\d.]+)' && '1' \|\| '0' \}\}", flag)
    assert chosen is not None, flag
    assert chosen[1] in regression["strategy"]["matrix"]["python-version"]
    sharded = load(GITHUB_SHARDED)["jobs"]
    assert sharded["shard"]["env"]["HARNESS_GITHUB_REPORT"] == "0"
    assert "HARNESS_GITHUB_REPORT" not in sharded["merge"].get("env", {})


def test_gitlab_pipelines_cache_pip_and_uv() -> None:
    """The pip and uv caches live in the project folder, keyed on pyproject.toml."""
    for path, template in ((GITLAB, ".harness"), (GITLAB_SHARDED, ".harness-python")):
        job = load(path)[template]
        assert job["variables"]["PIP_CACHE_DIR"] == "$CI_PROJECT_DIR/.cache/pip"
        assert job["variables"]["UV_CACHE_DIR"] == "$CI_PROJECT_DIR/.cache/uv"
        (cache,) = job["cache"]
        assert cache["key"] == {"files": ["pyproject.toml"]}
        assert cache["paths"] == [".cache/pip", ".cache/uv"]


def schema(name: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads((DATA / name).read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", [GITHUB, GITHUB_SHARDED], ids=lambda path: path.name)
def test_github_workflows_pass_the_workflow_schema_and_actionlint(path: Path) -> None:
    """SchemaStore's workflow schema always; actionlint too where it is installed."""
    workflow = load(path)
    workflow["on"] = workflow.pop(True)  # YAML 1.1 reads the key `on` as true
    errors = [
        error.message for error in schema("github-workflow.schema.json").iter_errors(workflow)
    ]
    assert errors == []
    actionlint = shutil.which("actionlint")
    if actionlint is not None:
        run = subprocess.run([actionlint, str(path)], capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("path", [GITLAB, GITLAB_SHARDED], ids=lambda path: path.name)
def test_gitlab_pipelines_pass_the_gitlab_ci_schema(path: Path) -> None:
    """GitLab's own CI schema, unmodified, accepts the pipeline."""
    errors = [error.message for error in schema("gitlab-ci.schema.json").iter_errors(load(path))]
    assert errors == []


def test_the_schemas_reject_a_broken_template() -> None:
    """The schema checks can fail: an unknown key is refused by both."""
    github = load(GITHUB)
    github["jobs"]["regression"]["runs_on"] = "ubuntu-latest"
    assert list(schema("github-workflow.schema.json").iter_errors(github))
    gitlab = load(GITLAB)
    gitlab["harness-regression"]["scirpt"] = ["x"]
    assert list(schema("gitlab-ci.schema.json").iter_errors(gitlab))


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
    """GitLab reads the gate's JUnit; capability keeps its JUnit as an artifact only.

    Published, the capability report's expected failures would turn the pipeline page red.
    """
    pipeline = load(GITLAB)
    regression, capability = pipeline["harness-regression"], pipeline["harness-capability"]
    assert regression["artifacts"]["reports"]["junit"] == "artifacts/regression.junit.xml"
    assert "artifacts" not in capability
    assert pipeline[".harness"]["artifacts"]["paths"] == ["artifacts/"]
    assert "reports" not in pipeline[".harness"]["artifacts"]
    assert pipeline[".harness"]["artifacts"]["when"] == "always"
    assert capability["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "schedule"'}]
    assert regression["rules"][0] == {"if": '$CI_PIPELINE_SOURCE == "schedule"', "when": "never"}

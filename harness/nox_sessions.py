"""nox sessions for a project of its own: regression, capability, live and harness-check.

In the project's `noxfile.py` (`harness init` writes these two lines, or prints them)::

    from harness.nox_sessions import register
    register(harness="replay-harness==0.1.0")

Each session installs the project (when it has a `pyproject.toml` with a `[project]` or
`[build-system]` table, or a `setup.py`) and the harness requirement given; the environment
variable `HARNESS_REQUIREMENT` overrides it (a local path, a fork, another release). Reports go
to `artifacts/`. Only a noxfile imports this module: nox is no dependency of the harness.
"""

from __future__ import annotations

import os
import re
import tomllib

import nox

from harness.version import DISTRIBUTION

__all__ = ["ARTIFACTS", "REQUIREMENT_VARIABLE", "SESSIONS", "SUITES", "register", "requirement"]

ARTIFACTS = "artifacts"
CAPABILITY_BASELINE = "evals/capability.baseline.json"
"""A baseline the capability session compares with, when the project keeps one."""
REQUIREMENT_VARIABLE = "HARNESS_REQUIREMENT"
SUITES = ("regression", "capability", "live")
SESSIONS = (*SUITES, "harness-check")
_NAMED = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?P<spec>\s*(?:[=<>!~].*)?)")


def requirement(default: str, extra: str | None = None) -> str:
    """The harness requirement: `HARNESS_REQUIREMENT` when set, else `default`, with `extra`.

    The extra is added where the form allows it: a name with an optional version
    (`replay-harness[chart]==0.1.0`), a local folder (`../harness[chart]`), or a URL
    (`replay-harness[chart] @ git+https://...`).
    """
    chosen = os.environ.get(REQUIREMENT_VARIABLE, "").strip() or default
    if extra is None:
        return chosen
    named = _NAMED.fullmatch(chosen)
    if named and not os.path.isdir(chosen):
        return f"{named['name']}[{extra}]{named['spec']}"
    if os.path.isdir(chosen):
        return f"{chosen.rstrip('/')}[{extra}]"
    if "://" in chosen and " @ " not in chosen:
        return f"{DISTRIBUTION}[{extra}] @ {chosen}"
    return chosen


def _installable(folder: str = ".") -> bool:
    """Whether the project in `folder` can be pip-installed (a bare `[tool.*]` file cannot)."""
    if os.path.isfile(os.path.join(folder, "setup.py")):
        return True
    try:
        with open(os.path.join(folder, "pyproject.toml"), "rb") as file:
            data = tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return "project" in data or "build-system" in data


def _install(session: nox.Session, harness: str, extra: str | None = None) -> None:
    """Install the project and the harness in one resolve, so the two agree on versions."""
    project = ["."] if _installable() else []
    session.install(*project, requirement(harness, extra))


def _run(
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
        *session.posargs,
        success_codes=success_codes,
    )


def register(*, harness: str) -> None:
    """Register the sessions with nox; `harness` is the requirement to install, e.g. a pin."""

    @nox.session(name="regression")
    def regression(session: nox.Session) -> None:
        """The gate: replay evals/regression; any failed or errored case fails the session."""
        _install(session, harness)
        _run(session, "regression")

    @nox.session(name="capability")
    def capability(session: nox.Session) -> None:
        """Nightly: replay evals/capability into the history and write the trend page.

        A failing case is tracked, never gated on: exit status 1 is accepted, 2 (a fixture
        that cannot load) fails the session. With `evals/capability.baseline.json`, the run
        also reports the cases that improved or regressed since that baseline.
        """
        _install(session, harness, extra="chart")
        kept = os.path.isfile(CAPABILITY_BASELINE)
        baseline = ["--baseline", CAPABILITY_BASELINE] if kept else []
        _run(session, "capability", "--history", *baseline, success_codes=(0, 1))
        html = f"{ARTIFACTS}/capability-trend.html"
        session.run("harness", "trend", "--suite", "capability", "--html", html)

    @nox.session(name="live")
    def live(session: nox.Session) -> None:
        """Run evals/live against a real model (not implemented yet: the session fails)."""
        _install(session, harness)
        _run(session, "live", "--mode", "live")

    @nox.session(name="harness-check")
    def harness_check(session: nox.Session) -> None:
        """`harness check` over every suite: each fixture can fail, privacy lint, balance."""
        suites = [f"evals/{suite}" for suite in SUITES if os.path.isdir(f"evals/{suite}")]
        if not suites:
            session.error(f"no suite folder: expected one of {', '.join(SUITES)} under evals/")
        _install(session, harness)
        gating = [suite for suite in suites if suite != "evals/capability"]
        if gating:
            session.run("harness", "check", *(arg for s in gating for arg in ("--suite", s)))
        if "evals/capability" in suites:  # its cases are what the agent cannot do yet
            session.run("harness", "check", "--may-fail", "--suite", "evals/capability")

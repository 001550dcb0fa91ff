"""The public face: a small, pinned, lazily loaded set of names."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import harness
from harness import errors

PUBLIC = {
    # The extension Protocols and the values they take and give.
    "Agent",
    "AgentFactory",
    "Case",
    "CaseContext",
    "Event",
    "GradeContext",
    "GradeResult",
    "Grader",
    "Message",
    "ModelProvider",
    "ModelReplied",
    "ModelReply",
    "Observer",
    "RecordedCall",
    "RunRecord",
    "Setup",
    "Tool",
    "ToolCall",
    "ToolDispatched",
    "ToolOutput",
    "ToolRegistry",
    "ToolSpec",
    "ToolsFactory",
    "Usage",
    # Loading and running a suite, and what that gives.
    "CaseReport",
    "Suite",
    "SuiteReport",
    "load_suite",
    "run_suite",
    # The errors a Python caller, or its agent, tools and graders, can meet.
    "AgentError",
    "CaseError",
    "CaseTimeout",
    "ConfigError",
    "FixtureError",
    "HarnessError",
    "ReplayError",
    "SuiteError",
    "__version__",
}

COMMAND_LINE_ONLY = {"ArtifactError", "HistoryError", "MergeError", "UsageError"}
"""Errors only the command line meets: a report file, the history, a merge, a flag."""


def test_public_names_are_pinned() -> None:
    """Adding or removing a public name is a deliberate change; `__all__` is sorted."""
    assert set(harness.__all__) == PUBLIC
    assert harness.__all__ == sorted(PUBLIC)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_each_public_name_is_the_object_of_its_home_module(name: str) -> None:
    """A public name is the very object its module defines, not a copy or a stand-in."""
    value = getattr(harness, name)
    home = harness._homes()[name]
    assert value is getattr(importlib.import_module(home), name)
    assert name in dir(harness)


def test_unknown_and_dropped_names_are_attribute_errors() -> None:
    """A name off the face, such as a command-line-only error, is not found on it."""
    for name in ("surely_not_public", "ReferenceAgent", "EchoTool", *COMMAND_LINE_ONLY):
        with pytest.raises(AttributeError, match=name):
            getattr(harness, name)


def test_the_face_holds_the_error_tree_but_the_command_line_errors() -> None:
    """Every exported error is a `HarnessError`; every other one is command-line only, or
    never leaves the harness (a grader's failure, a refused wire request, an unreadable file
    become a case's or a fixture's error)."""
    tree = {name for name in errors.__all__ if name in PUBLIC}
    kept_inside = {"ExtensionError", "WireRequestError", "UnreadableFile"}
    assert set(errors.__all__) - tree - kept_inside == COMMAND_LINE_ONLY
    for name in tree:
        assert issubclass(getattr(harness, name), harness.HarnessError)


def test_star_import_gives_the_face() -> None:
    """`from harness import *` binds exactly the public names."""
    code = "from harness import *; print(' '.join(sorted(n for n in dir() if n[:2] != '__')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert set(out.stdout.split()) == PUBLIC - {"__version__"}


def test_import_harness_loads_no_heavy_module() -> None:
    """`import harness` alone imports no msgspec, report, fixture or replay module."""
    code = (
        "import sys, harness; "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('harness', 'msgspec', "
        "'tabulate', 'junit_xml', 're2', 'ast')))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert loaded == ["harness"]


def test_a_public_name_loads_only_its_own_module() -> None:
    """Reading one name imports its home, not the whole package."""
    code = "import sys, harness; harness.CaseContext; print('harness.reports.model' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

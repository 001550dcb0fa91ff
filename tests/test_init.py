"""The public API: a small, pinned, lazily loaded face."""

from __future__ import annotations

import subprocess
import sys

import pytest

import harness

PUBLIC = {
    "Agent",
    "AgentError",
    "AgentFactory",
    "ArtifactError",
    "CaseContext",
    "CaseError",
    "CaseReport",
    "CaseTimeout",
    "ConfigError",
    "EchoTool",
    "Event",
    "ExtensionError",
    "FixtureError",
    "GradeContext",
    "GradeResult",
    "Grader",
    "HarnessError",
    "HistoryError",
    "MergeError",
    "Message",
    "ModelProvider",
    "ModelReplied",
    "ModelReply",
    "Observer",
    "RecordedCall",
    "ReferenceAgent",
    "ReplayError",
    "RunRecord",
    "Setup",
    "Suite",
    "SuiteError",
    "SuiteReport",
    "Tool",
    "ToolCall",
    "ToolDispatched",
    "ToolOutput",
    "ToolRegistry",
    "ToolSpec",
    "Usage",
    "UsageError",
    "__version__",
    "load_suite",
    "run_suite",
}


def test_public_names_are_pinned() -> None:
    """Adding or removing a public name is a deliberate change."""
    assert set(harness.__all__) == PUBLIC
    assert harness.__all__ == sorted(harness.__all__, key=lambda name: (name[0].islower(), name))


def test_every_public_name_resolves_and_unknown_names_do_not() -> None:
    """Each name in __all__ loads from its module; anything else is an AttributeError."""
    for name in harness.__all__:
        assert getattr(harness, name) is not None
    with pytest.raises(AttributeError, match="surely_not_public"):
        harness.surely_not_public  # noqa: B018


def test_import_harness_loads_no_heavy_module() -> None:
    """`import harness` alone imports no msgspec, report, fixture or replay module."""
    code = (
        "import sys, harness; "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('harness', 'msgspec', "
        "'tabulate', 'junit_xml', 're2')))))"
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

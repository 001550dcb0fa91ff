"""The public API."""

from __future__ import annotations

import harness


def test_all_is_sorted_and_every_name_resolves() -> None:
    """__all__ is sorted and each name is importable from harness."""

    def isort_style(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert harness.__all__ == sorted(harness.__all__, key=isort_style)
    for name in harness.__all__:
        assert getattr(harness, name) is not None


def test_public_names_are_pinned() -> None:
    """Adding or removing a public name is a deliberate change."""
    assert set(harness.__all__) >= {
        "LlmTrace",
        "ReplayProvider",
        "ReferenceAgent",
        "RecordingObserver",
        "RecordedCall",
        "RunRecord",
        "GradeResult",
        "evaluate_expects",
        "CaseReport",
        "SuiteReport",
        "run_case",
        "run_suite",
        "load_suite",
        "HarnessError",
        "FixtureError",
        "ModelProvider",
        "Tool",
        "Observer",
        "Grader",
        "Agent",
        "Setup",
        "RecordedTool",
    }
    assert len(harness.__all__) == 60

"""RunRecord: calls are the one source of truth."""

from __future__ import annotations

from tests.builders import record


def test_names_and_success_derive_from_calls() -> None:
    """tool_names and all_tools_succeeded are views of tool_calls."""
    run = record("r", (("echo", "{}", "a", True), ("nope", "{}", "b", False)))
    assert run.tool_names == ("echo", "nope")
    assert run.all_tools_succeeded is False


def test_no_calls_counts_as_all_succeeded() -> None:
    """A run that dispatched nothing had no failed call."""
    assert record().all_tools_succeeded is True
    assert record().tool_names == ()

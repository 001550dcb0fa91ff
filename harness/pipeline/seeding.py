"""Getting a case's workspace ready before its first turn."""

from __future__ import annotations

from harness.fixtures.format import Case
from harness.replay.workspace import Workspace
from harness.replay.workspace_files import seed

__all__ = ["ready_workspace"]


def ready_workspace(case: Case, workspace: Workspace) -> tuple[str, str | None, None]:
    """Seed `setup.workspace_files`, and make the folder of a case that grades one.

    A case with `expects.workspace` always has a folder to grade, even if its agent writes
    nothing. Returns what `_play` does: no response, and the case's error if seeding failed.
    """
    setup = case.trace.setup
    if setup is not None and setup.workspace_files:
        try:
            seed(workspace, setup.workspace_files)
        except (OSError, ValueError) as exc:
            return "", f"cannot seed the workspace: {exc}", None
    elif case.expects.workspace is not None:
        _ = workspace.path  # created on first access
    return "", None, None

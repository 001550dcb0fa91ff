"""The lazy per-case workspace."""

from __future__ import annotations

import os

from harness.replay.workspace import Workspace


def test_workspace_is_made_only_when_asked_and_removed_after() -> None:
    """No folder unless .path is used; removed on exit."""
    with Workspace() as workspace:
        assert not workspace.created
        path = workspace.path
        assert os.path.isdir(path)
        assert workspace.path == path
    assert not os.path.exists(path)
    assert not workspace.created

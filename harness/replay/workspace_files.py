"""Workspace files: seeding a case's workspace, and the reference loop's file tools.

`write_file` and `read_file` let the reference loop leave a real side effect for
`expects.workspace` to grade. Both are confined to the case's temp workspace: a path that is
absolute, steps out with `..` or leads out through a symlink is a failed call, never a write
or read elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from harness.fixtures.paths import path_problem, resolve_inside
from harness.replay.tools import ToolOutput

if TYPE_CHECKING:
    from harness.replay.tools import Tool
    from harness.replay.workspace import Workspace

__all__ = ["FILE_TOOL_NAMES", "READ_LIMIT", "ReadFileTool", "WriteFileTool", "file_tools", "seed"]

READ_LIMIT = 1024 * 1024
"""Bytes of a file `read_file` returns at most."""
FILE_TOOL_NAMES = ("write_file", "read_file")
"""The names of the file tools, as the reference loop registers them."""


def seed(workspace: Workspace, files: Mapping[str, str]) -> None:
    """Write `files` (relative path to text) into the workspace, creating folders.

    Raises:
        OSError: A file cannot be written (the case errors).
        ValueError: A path leads out of the workspace.
    """
    for path, content in files.items():
        target = _inside(workspace, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as file:
            file.write(content)


def _inside(workspace: Workspace, path: str) -> str:
    problem = path_problem(path)
    if problem is not None:
        raise ValueError(problem)
    target = resolve_inside(workspace.path, path)
    if target is None:
        raise ValueError(f"{path!r} leads out of the case workspace (a symlink)")
    return target


class WriteFileTool:
    """`write_file`: writes `content` to `path` in the case workspace."""

    name = "write_file"
    description = "Write text to a file in the workspace (relative path), replacing it."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Relative path in the workspace."},
            "content": {"type": "string", "description": "The text to write."},
        },
        "required": ["path", "content"],
    }

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    def call(self, arguments: Any) -> ToolOutput:
        """Write the file; a bad path or content is a failed call."""
        path, content = _argument(arguments, "path"), _argument(arguments, "content")
        if path is None or content is None:
            return ToolOutput(text="write_file needs string path and content", success=False)
        try:
            seed(self._workspace, {path: content})
        except (OSError, ValueError) as exc:
            return ToolOutput(text=f"cannot write {path}: {exc}", success=False)
        return ToolOutput(text=f"wrote {len(content.encode())} bytes to {path}")


class ReadFileTool:
    """`read_file`: returns the text of `path` in the case workspace."""

    name = "read_file"
    description = "Read a text file from the workspace (relative path)."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Relative path in the workspace."}
        },
        "required": ["path"],
    }

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    def call(self, arguments: Any) -> ToolOutput:
        """Read the file; a missing file or bad path is a failed call."""
        path = _argument(arguments, "path")
        if path is None:
            return ToolOutput(text="read_file needs a string path", success=False)
        try:
            with open(_inside(self._workspace, path), "rb") as file:
                data = file.read(READ_LIMIT)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            return ToolOutput(text=f"cannot read {path}: {reason}", success=False)
        return ToolOutput(text=data.decode("utf-8", "replace"))


def file_tools(workspace: Workspace) -> tuple[Tool, ...]:
    """The file tools of one case, bound to its workspace."""
    return (WriteFileTool(workspace), ReadFileTool(workspace))


def _argument(arguments: Any, key: str) -> str | None:
    value = arguments.get(key) if isinstance(arguments, dict) else None
    return value if isinstance(value, str) else None

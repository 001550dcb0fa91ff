"""A case's private temp folder, made only if something asks for it."""

from __future__ import annotations

from types import TracebackType

__all__ = ["Workspace"]


class Workspace:
    """A temp folder for one case, created lazily and removed on exit.

    Most replayed cases never touch a workspace, so creating one up front would be pure cost.
    """

    def __init__(self) -> None:
        self._path: str | None = None

    @property
    def path(self) -> str:
        """The folder, created on first access."""
        if self._path is None:
            import tempfile  # a case that never asks for its folder does not load it

            self._path = tempfile.mkdtemp(prefix="harness-case-")
        return self._path

    @property
    def created(self) -> bool:
        """Whether the folder exists (was asked for and not yet removed)."""
        return self._path is not None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._path is not None:
            import shutil

            shutil.rmtree(self._path, ignore_errors=True)
            self._path = None

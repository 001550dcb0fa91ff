"""`harness run --baseline`: the gating baseline, read and checked before the run."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from harness.errors import UsageError

if TYPE_CHECKING:
    from harness.reports.baseline import Baseline

__all__ = ["read_gate", "refuse_foreign"]


def read_gate(
    path: str | None, folder: str, mode: str, tool_surface: str | None = None
) -> Baseline | None:
    """The baseline at `path` (None when none is asked for), for a run of the suite in
    `folder` in `mode`, offering the model the tools `tool_surface` describes.

    Raises:
        UsageError: It cannot be read, or is a baseline of another suite, mode or tool
            surface.
    """
    if not path:
        return None
    from harness.reports.baseline import read_baseline

    baseline = read_baseline(path)
    refuse_foreign(path, baseline, os.path.basename(os.path.normpath(folder)), mode, tool_surface)
    return baseline


def refuse_foreign(
    path: str, baseline: Baseline, suite: str, mode: str, tool_surface: str | None = None
) -> None:
    """Refuse a baseline of another suite, mode or tool surface (None: not known yet).

    Raises:
        UsageError: It is; the line names the file and the field that differs.
    """
    from harness.reports.baseline import foreign

    differs = foreign(baseline, suite=suite, mode=mode, tool_surface=tool_surface)
    if differs is not None:
        raise UsageError(f"{path}: a baseline of another run: {differs}")

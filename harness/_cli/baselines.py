"""`harness run --baseline/--write-baseline/--dump-records`: what a run adds beside its reports."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from harness.errors import ArtifactError, UsageError
from harness.text import complain

if TYPE_CHECKING:
    from harness.reports.baseline import Baseline, Comparison
    from harness.reports.model import SuiteReport

__all__ = ["baselines", "dumper", "read_gate", "refuse_foreign"]


def dumper(directory: str) -> Any:
    """Write each failed or errored case's record to `directory` as the case finishes."""
    from harness.reports.receipts import Receipts

    return Receipts(directory).add


def baselines(
    args: argparse.Namespace,
    report: SuiteReport,
    baseline: Baseline | None,
    status: int,
    *,
    complete: bool,
) -> tuple[int, Comparison | None]:
    """Compare with the baseline and write one, as asked; the exit status and the comparison.

    The comparison, made of a run that finished every case with a verdict (0 or 1), is the
    exit status, and the JUnit file written marks its flips; it is shown after the table.

    Raises:
        UsageError: The baseline is of another suite, mode or tool surface than the run.
    """
    comparison = None
    if baseline is not None:
        refuse_foreign(args.baseline, baseline, report.suite, report.mode, report.tool_surface)
    if baseline is not None and complete and status in (0, 1):
        from harness.reports.artifact import is_in_place, read_artifact
        from harness.reports.baseline import compare, write_marked_junit

        comparison = compare(baseline, report)
        status = comparison.exit_code()
        if args.junit and os.path.isfile(args.junit) and not is_in_place(args.junit):
            # a device or a stream (/dev/null, /dev/stdout) is written once, never read back
            junit = read_artifact(args.junit, ArtifactError)
            write_marked_junit(args.junit, junit, comparison.cases)
    path = args.write_baseline
    if path:
        from harness.reports.baseline import unwritten, write_baseline

        # A baseline that gates this run is kept, or the next run would pass on the
        # regression it found; a run that could write none says why it could not.
        gating = comparison is not None and comparison.exit_code() > 0
        if (
            gating
            and _same_file(args.baseline, path)
            and unwritten(report, complete=complete) is None
        ):
            refused: str | None = f"{path}: baseline not written over: the comparison with it gates"
        else:
            refused = write_baseline(report, path, complete=complete)
        if refused is not None:
            complain(refused)
    return status, comparison


def read_gate(path: str | None, folder: str, mode: str) -> Baseline | None:
    """The baseline at `path` (None when none is asked for), for a run of the suite in
    `folder` in `mode`.

    Raises:
        UsageError: It cannot be read, or is a baseline of another suite or mode.
    """
    if not path:
        return None
    from harness.reports.baseline import read_baseline

    baseline = read_baseline(path)
    refuse_foreign(path, baseline, os.path.basename(os.path.normpath(folder)), mode)
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


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:  # the second does not exist yet
        return False

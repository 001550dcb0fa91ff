"""Which suite a run loads and which of its cases it runs: `--suite`, `PATH...`, `-k`, `--lf`."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from harness._cli.last_failed import last_failed
from harness.errors import UsageError
from harness.fixtures.selection import keyword_matcher, select_cases, select_paths
from harness.text import complain

if TYPE_CHECKING:
    from harness.fixtures.suite import Suite

__all__ = ["apply_selection", "suite_folder"]


def suite_folder(suite: str | None, paths: Sequence[str], default: str) -> str:
    """The one suite folder a run loads: `--suite`, the folder of the `PATH`s, else `default`.

    Raises:
        UsageError: The paths lie in more than one folder, or outside `--suite`.
    """
    folders: dict[str, str] = {}
    for path in paths:
        folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
        if not os.path.isdir(path) and not path.endswith(".json"):
            raise UsageError(f"{path}: not a fixture file (*.json) or a suite folder")
        folders.setdefault(os.path.realpath(folder), folder)
    if suite is not None:
        folders.setdefault(os.path.realpath(suite), suite)
        if len(folders) > 1:
            outside = [path for path in folders.values() if path != suite]
            raise UsageError(
                f"{', '.join(outside)}: not in the suite folder {suite} given by --suite"
            )
        return suite
    if len(folders) > 1:
        listed = ", ".join(sorted(folders.values()))
        raise UsageError(f"the paths lie in more than one suite folder ({listed}): run each alone")
    return next(iter(folders.values()), default)


def apply_selection(suite: Suite, args: argparse.Namespace, cache: str) -> Suite:
    """`suite` cut down by the run's `PATH`s, `-k` and `--last-failed`, in that order.

    Returns the suite unchanged when nothing selects; otherwise the selected suite, whose
    `selection` names what was applied (reports and JUnit say it).

    Raises:
        UsageError: An expression or path is bad, or the selection leaves no case.
    """
    if not (args.paths or args.keyword is not None or args.last_failed):
        return suite
    applied: list[str] = []
    if args.paths:
        chosen = select_paths(suite, args.paths)
        described = " ".join(args.paths)
        before = suite.count
        suite = select_cases(suite, chosen, described)
        if suite.count < before:
            applied.append(described)
    if args.keyword is not None:
        applied.append(f"-k {args.keyword!r}")
        suite = select_cases(suite, keyword_matcher(args.keyword), applied[-1])
    if args.last_failed:
        suite = _last_failed(suite, cache, applied)
    if not applied:
        return suite
    return _selected(suite, " ".join(applied))


def _last_failed(suite: Suite, cache: str, applied: list[str]) -> Suite:
    names = last_failed(cache, suite.directory)
    if names is None:
        complain(
            f"--last-failed: no previous run of {suite.directory} is known: running every case"
        )
        return suite
    if not names:
        complain(
            f"--last-failed: every case passed in the previous run of {suite.directory}: "
            "running every case"
        )
        return suite
    applied.append("--last-failed")
    return select_cases(suite, lambda case: case.name in names, "--last-failed")


def _selected(suite: Suite, selection: str) -> Suite:
    return msgspec.structs.replace(suite, selection=selection)

"""Partial scores: how many checks passed, per case, per category and for a whole run.

A case passes or fails whole; its score (`7/9 checks`) says how far it got, and the counts per
category say where it fell short (the tool calls, the response, the side effects, ...).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from harness.grading.result import CATEGORIES, GradeResult

__all__ = ["Tally", "by_category", "score_text", "tally"]


class Tally(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Checks passed out of checks made."""

    passed: int
    total: int


def tally(grades: Iterable[GradeResult]) -> Tally:
    """How many of `grades` passed."""
    results = [grade.passed for grade in grades]
    return Tally(passed=sum(results), total=len(results))


def by_category(grades: Iterable[GradeResult]) -> dict[str, Tally]:
    """The tally of each category that has a check, in the order of `CATEGORIES`."""
    counts: dict[str, list[int]] = {}
    for grade in grades:
        count = counts.setdefault(grade.category, [0, 0])
        count[0] += grade.passed
        count[1] += 1
    order: dict[str, int] = {name: index for index, name in enumerate(CATEGORIES)}
    return {
        name: Tally(passed=passed, total=total)
        for name, (passed, total) in sorted(counts.items(), key=lambda item: order.get(item[0], 99))
    }


def score_text(count: Tally) -> str:
    """`7/9 checks`."""
    return f"{count.passed}/{count.total} checks"

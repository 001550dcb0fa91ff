"""A suite: the direct `*.json` children of one folder, loaded whole or not at all."""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Iterator, Sequence

import msgspec

from harness.case import PAYLOAD_FAMILIES, Case, ToolCallsReply
from harness.errors import FixtureError, SuiteError
from harness.gcpause import gc_paused
from harness.limits import DEFAULT_LIMITS, Limits
from harness.loader import load_case
from harness.shard import Shard

__all__ = [
    "PARALLEL_MIN",
    "Suite",
    "fixture_paths",
    "load_cases",
    "load_paths",
    "load_suite",
    "unknown_tools",
]

PARALLEL_MIN = 2048
"""Suite size from which `jobs` > 1 loads, and replays with the built-in loop, in workers.

Below it, starting workers costs more than they save: loading and replaying a case with the
reference agent takes tens of microseconds. A project's own agent or tools, whose cases may
take far longer, get their workers whatever the size.
"""


class Suite(msgspec.Struct, frozen=True, kw_only=True):
    """Every case of one suite folder, sorted by file name."""

    name: str
    """The suite's name: its folder's base name (`regression`, `capability`, ...)."""
    directory: str
    """The folder, as given."""
    cases: tuple[Case, ...]
    """The admitted cases (of this shard, when sharded)."""
    shard: Shard | None = None
    """The slice of the suite these cases are, or None for all of it."""
    total: int = -1
    """How many cases the whole suite holds, all shards together."""

    def sharded(self, shard: Shard) -> Suite:
        """This suite cut down to one shard (validation already covered all of it)."""
        return msgspec.structs.replace(
            self, cases=shard.select(self.cases), shard=shard, total=len(self.cases)
        )


def fixture_paths(directory: str, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    """The direct `*.json` children of `directory`, sorted by file name.

    Not recursive; the suffix is case-sensitive.

    Raises:
        SuiteError: The folder cannot be listed, holds no fixture, or more than max_fixtures.
    """
    return _scan(directory, limits)[0]


def _scan(directory: str, limits: Limits) -> tuple[list[str], frozenset[str]]:
    """`fixture_paths`, and which of them are symlinks (read off the listing: no stat)."""
    try:
        with os.scandir(directory) as listing:
            entries = [entry for entry in listing if entry.name.endswith(".json")]
        links = frozenset(entry.path for entry in entries if entry.is_symlink())
    except OSError as exc:
        reason = f"{directory}: cannot read suite folder: {exc.strerror or exc}"
        raise SuiteError(directory, reason) from None
    if not entries:
        raise SuiteError(directory, f"no *.json trace fixtures found in {directory}")
    if len(entries) > limits.max_fixtures:
        reason = (
            f"{directory}: holds {len(entries)} fixtures, over the limit of "
            f"{limits.max_fixtures} (max_fixtures)"
        )
        raise SuiteError(directory, reason)
    # entry.path is os.path.join(directory, entry.name), made in C by the listing itself.
    return sorted(entry.path for entry in entries), links


def load_suite(
    directory: str,
    tool_names: Iterable[str] | None = ("echo",),
    limits: Limits = DEFAULT_LIMITS,
    jobs: int = 1,
) -> Suite:
    """Load and validate every fixture of a suite folder.

    The whole suite is checked before anything runs, and every rejected file is reported at
    once: a suite never shrinks silently.

    Args:
        directory: The suite folder.
        tool_names: The tools the agent's registry holds. An expectation naming a tool that is
            neither registered nor scripted by its own fixture could never fail (or never
            pass), so it is rejected. None skips this check.
        limits: Bounds on what is read.
        jobs: Worker processes that may share the reading and decoding of a large suite.

    Raises:
        SuiteError: The folder is unusable, or at least one fixture is rejected.
    """
    cases, problems = load_cases(directory, tool_names, limits, jobs)
    if problems:
        noun = "fixture" if len(problems) == 1 else "fixtures"
        raise SuiteError(directory, f"{len(problems)} {noun} rejected", tuple(problems))
    name = os.path.basename(os.path.normpath(directory))
    return Suite(name=name, directory=directory, cases=tuple(cases), total=len(cases))


def load_cases(
    directory: str,
    tool_names: Iterable[str] | None = ("echo",),
    limits: Limits = DEFAULT_LIMITS,
    jobs: int = 1,
) -> tuple[list[Case], list[FixtureError]]:
    """The admitted cases of a suite folder and every rejection, in file-name order.

    `load_suite` without the all-or-nothing: for tools that report on every fixture.

    Raises:
        SuiteError: The folder cannot be listed, or holds no fixture.
    """
    paths, links = _scan(directory, limits)
    with gc_paused():  # decoded fixtures are acyclic; scanning the growing heap only costs time
        loaded = None
        if jobs > 1 and len(paths) >= PARALLEL_MIN:
            from harness.pool import load_in_workers

            loaded = load_in_workers(directory, paths, links, limits, jobs)
        cases, problems = load_paths(directory, paths, links, limits) if loaded is None else loaded
    problems.extend(_duplicate_names(cases))
    if tool_names is not None:
        registered = frozenset(tool_names)
        for case in cases:
            problems += unknown_tools(case, registered)
    problems.sort(key=lambda problem: problem.path)
    rejected = {problem.path for problem in problems}
    return [case for case in cases if case.source not in rejected], problems


def load_paths(
    directory: str, paths: Sequence[str], links: frozenset[str], limits: Limits
) -> tuple[list[Case], list[FixtureError]]:
    """Load fixture files of `directory`: the admitted cases and the rejections, in order.

    `links` are the paths that are symlinks, which must stay inside the folder unless the
    limits allow otherwise.
    """
    cases: list[Case] = []
    problems: list[FixtureError] = []
    if limits.follow_external_symlinks:
        links = frozenset()
    inside = os.path.realpath(directory) + os.sep if links else ""
    for path in paths:
        try:
            if path in links:
                _check_link(path, inside)
            cases.append(load_case(path, limits))
        except FixtureError as problem:
            problems.append(problem)
    return cases, problems


def _check_link(path: str, inside: str) -> None:
    target = os.path.realpath(path)
    if not target.startswith(inside):
        reason = (
            f"is a symlink to {target}, outside the suite folder "
            "(follow_external_symlinks = true allows it)"
        )
        raise FixtureError(path, None, reason)


def _duplicate_names(cases: list[Case]) -> Iterator[FixtureError]:
    first: dict[str, str] = {}
    for case in cases:
        earlier = first.setdefault(case.name, case.source)
        if earlier != case.source:
            yield FixtureError(
                case.source, "$.model_name", f'duplicate case name "{case.name}" (also {earlier})'
            )


_TOOL = operator.attrgetter("tool")


def unknown_tools(case: Case, registered: frozenset[str]) -> list[FixtureError]:
    """Expectations naming a tool that is neither registered nor scripted by the fixture."""
    expects = case.expects
    if (
        registered.issuperset(expects.tools_used)
        and registered.issuperset(expects.tools_not_used)
        and registered.issuperset(map(_TOOL, expects.tool_arguments_contain))
        and registered.issuperset(map(_TOOL, expects.tool_results_contain))
    ):
        return []  # the common case: every named tool is registered
    scripted = {
        call.name
        for turn in case.trace.turns
        for step in turn.steps
        if isinstance(step.response, ToolCallsReply)
        for call in step.response.tool_calls
    }
    known = registered | scripted
    named = [
        *((f"$.expects.{family}[{i}]", name) for family in ("tools_used", "tools_not_used")
          for i, name in enumerate(getattr(expects, family))),
        *((f"$.expects.{family}[{i}].tool", entry.tool) for family in PAYLOAD_FAMILIES
          for i, entry in enumerate(getattr(expects, family))),
    ]  # fmt: skip
    return [
        FixtureError(case.source, location, _unknown_tool_reason(name, known))
        for location, name in named
        if name not in known
    ]


def _unknown_tool_reason(name: str, known: frozenset[str]) -> str:
    import difflib  # only a rejected fixture needs suggestions

    hint = difflib.get_close_matches(name, sorted(known), n=1)
    suggestion = f'; did you mean "{hint[0]}"?' if hint else ""
    listed = ", ".join(f'"{tool}"' for tool in sorted(known)) or "none"
    return (
        f'names tool "{name}", which is neither registered nor scripted in this fixture '
        f"(known: {listed}){suggestion}"
    )

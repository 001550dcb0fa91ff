"""The exception tree of harness.

Every error the harness raises on purpose derives from `HarnessError`::

    HarnessError                 the CLI prints it as one line on stderr, exit status 2
    ├── UsageError               a flag or mode this run cannot honour (live mode in Phase 0)
    ├── ConfigError              `[tool.harness]` is wrong: `.source`, `.key`
    ├── FixtureError             one fixture is rejected at load: `.path`, `.location`
    ├── SuiteError               a suite cannot load: `.directory`, `.problems`
    ├── ArtifactError            a report file could not be written: `.path`
    ├── HistoryError             the run history cannot be read or written: `.path`
    ├── UnreadableFile           a file named by the user is not one to read: `.path`, `.reason`
    ├── MergeError               shard reports that cannot be merged into one: `.path`
    ├── WireRequestError         a request the replay endpoint answers with a 400 (never leaves it)
    └── CaseError                one case's run went wrong; the case errors, the suite goes on
        ├── ReplayError          the trace and the agent disagree on the LLM round trips
        ├── AgentError           the agent loop refused a turn or gave up on it
        ├── CaseTimeout          the case ran past its `case_timeout`
        └── ExtensionError       a project's observer or grader failed; names it

`Interrupted` (in `harness.pipeline.interrupt`) is a `KeyboardInterrupt` on purpose, so that no
`except Exception` swallows a stop.

The errors beside `CaseError` stop a run before (or, for artifacts, after) anything is graded.
A `CaseError` never escapes `run_case`: it becomes the case's `error`.
"""

from __future__ import annotations

__all__ = [
    "AgentError",
    "ArtifactError",
    "CaseError",
    "CaseTimeout",
    "ConfigError",
    "ExtensionError",
    "FixtureError",
    "HarnessError",
    "HistoryError",
    "MergeError",
    "ReplayError",
    "SuiteError",
    "UsageError",
    "WireRequestError",
]


class HarnessError(Exception):
    """Base of every error harness raises on purpose."""


class UsageError(HarnessError):
    """The command line asks for something this run cannot do."""


class ConfigError(HarnessError):
    """The configuration is invalid.

    Attributes:
        source: Where the configuration came from (a file path, or `--flag`).
        key: The offending key, when there is one.
        reason: Why it is rejected.
    """

    def __init__(self, source: str, key: str | None, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        place = f"{source}: {key}" if key else source
        super().__init__(f"{place}: {reason}")


class FixtureError(HarnessError):
    """A trace fixture is rejected at load.

    Attributes:
        path: The fixture file, as given.
        location: The JSON path (`$.expects.tools_used[0]`) or text position, if known.
        reason: Why the fixture is rejected.
    """

    def __init__(self, path: str, location: str | None, reason: str) -> None:
        self.path = path
        self.location = location
        self.reason = reason
        place = f"{path}: {location}" if location else path
        super().__init__(f"{place}: {reason}")


class SuiteError(HarnessError):
    """A suite cannot load; nothing in it is run.

    Attributes:
        directory: The suite folder, as given.
        problems: Every rejected fixture, in file-name order (empty when the folder itself is
            the problem).
    """

    def __init__(
        self, directory: str, reason: str, problems: tuple[FixtureError, ...] = ()
    ) -> None:
        self.directory = directory
        self.reason = reason
        self.problems = problems
        lines = [str(problem) for problem in problems] or [reason]
        super().__init__("\n".join(lines))


class ArtifactError(HarnessError):
    """A report artifact could not be written; any previous file is left intact.

    Attributes:
        path: The artifact path, as given.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: cannot write artifact: {reason}")


class HistoryError(HarnessError):
    """The run history (or an artifact imported into it) cannot be used.

    Attributes:
        path: The history database or artifact file, as given.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class CaseError(HarnessError):
    """One case's run went wrong: the case is reported as errored."""


class ReplayError(CaseError):
    """The scripted trace and the agent disagree on the number of LLM round trips."""


class AgentError(CaseError):
    """The agent loop refused a turn or gave up on it."""


class CaseTimeout(CaseError):
    """The case ran past its `case_timeout`."""


class WireRequestError(HarnessError):
    """A request to the replay endpoint is refused with a 400 whose message is this error's.

    Attributes:
        status: The HTTP status answered: 400, or 411 for a body of no stated length.
    """

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class MergeError(HarnessError):
    """Shard reports that cannot be merged into one.

    Attributes:
        path: The part that does not fit (or the first part, for a problem of the whole set).
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class ExtensionError(CaseError):
    """An observer or grader extension failed; the message names it and its error."""


class UnreadableFile(HarnessError):
    """A file the harness was pointed at cannot be read as one (callers name its kind).

    Attributes:
        path: The file.
        reason: Why, in a few words ("is a folder, not a fixture file").
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")

"""harness: a deterministic replay regression gate for AI agent loops.

The package is laid out as the path a run takes, each stage importing only those before it:

- `errors`, `messages`, `text`, `credentials`, `chat_format`, `files`, `version`, `_parallel`: the
  shared vocabulary (the exception tree, what crosses an agent's boundaries, text safety).
- `fixtures/`: what a case is; fixture files read and admitted fail-closed; the suite.
- `replay/`: playing a case to an agent: the scripted model, tools, turns, the wire
  endpoint, subprocess agents, the `CaseContext`, loading the project's code.
- `recording`: the one recorder; boundary events in, one `RunRecord` out.
- `grading/`: the graders, built-in and the project's own, and their `GradeResult`s.
- `reports/`: case and suite reports, the JSON document, table, JUnit, GitHub, artifacts.
- `config`: the `[tool.harness]` table.
- `pipeline/`: a case, and a whole suite, through the stages above.
- `history/`: the SQLite run history and its trend.
- `authoring/`: `harness check`: load rules, mutation strength, the privacy lint.
- `_cli/`: the command line (private).

Glossary: a *fixture* is one JSON file; a *case* is a fixture being run, named by its
`model_name` key; a *suite* is a folder of fixtures; a *turn* is one user input; a *step* is
one scripted model reply; a *call* is one recorded tool call; a *record* is what one run
did; a *check* is one graded item; a *report* is results rendered; an *artifact* is a report
written to a file.

The public face is what a Python caller needs: the extension Protocols (`Agent`, `Tool`,
`ModelProvider`, `Observer`, `Grader`) and the values they take and give, `load_suite` and
`run_suite` with what they take and give, and the errors a caller can meet. The imports under
`TYPE_CHECKING` below are its one table: type checkers read them, and `__getattr__` reads
them (once, from this file) to load each name from its module on first use, so that
`import harness` itself loads nothing else (an agent run as a subprocess imports
`harness.agent_io`, and with it this file, in its own interpreter).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.errors import AgentError as AgentError
    from harness.errors import CaseError as CaseError
    from harness.errors import CaseTimeout as CaseTimeout
    from harness.errors import ConfigError as ConfigError
    from harness.errors import FixtureError as FixtureError
    from harness.errors import HarnessError as HarnessError
    from harness.errors import ReplayError as ReplayError
    from harness.errors import SuiteError as SuiteError
    from harness.fixtures.format import Case as Case
    from harness.fixtures.suite import Suite as Suite
    from harness.fixtures.suite import load_suite as load_suite
    from harness.grading.result import GradeContext as GradeContext
    from harness.grading.result import Grader as Grader
    from harness.grading.result import GradeResult as GradeResult
    from harness.messages import Event as Event
    from harness.messages import Message as Message
    from harness.messages import ModelProvider as ModelProvider
    from harness.messages import ModelReplied as ModelReplied
    from harness.messages import ModelReply as ModelReply
    from harness.messages import Observer as Observer
    from harness.messages import RecordedCall as RecordedCall
    from harness.messages import ToolCall as ToolCall
    from harness.messages import ToolDispatched as ToolDispatched
    from harness.messages import ToolSpec as ToolSpec
    from harness.messages import Usage as Usage
    from harness.pipeline.dispatch import run_suite as run_suite
    from harness.pipeline.setup import AgentFactory as AgentFactory
    from harness.pipeline.setup import Setup as Setup
    from harness.recording import RunRecord as RunRecord
    from harness.replay.agent import Agent as Agent
    from harness.replay.context import CaseContext as CaseContext
    from harness.replay.plugin import ToolsFactory as ToolsFactory
    from harness.replay.tools import Tool as Tool
    from harness.replay.tools import ToolOutput as ToolOutput
    from harness.replay.tools import ToolRegistry as ToolRegistry
    from harness.reports.model import CaseReport as CaseReport
    from harness.reports.model import SuiteReport as SuiteReport
    from harness.version import __version__ as __version__

    __all__: list[str]  # the names above, sorted, built by `__getattr__`
else:  # hidden from type checkers, which would take any name `__getattr__` may give

    def __getattr__(name: str) -> Any:
        """Import a public name's module on first use (PEP 562); `__all__` lists them."""
        if name == "__all__":
            value: Any = sorted(_homes())
        elif (module := _homes().get(name)) is not None:
            value = getattr(importlib.import_module(module), name)
        else:
            raise AttributeError(f"module 'harness' has no attribute {name!r}")
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_homes()})


_home: dict[str, str] = {}
"""Each public name's module, read from the table above on first use."""


def _homes() -> dict[str, str]:
    if not _home:
        import ast  # deferred: read once, on the first public name used

        with open(__file__, encoding="utf-8") as source:
            body = ast.parse(source.read()).body
        table = next(node for node in body if isinstance(node, ast.If))
        for node in table.body:
            if isinstance(node, ast.ImportFrom):
                names = node.names
                _home.update((alias.asname or alias.name, str(node.module)) for alias in names)
    return _home

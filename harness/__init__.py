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

Names are loaded on first use, so `import harness` itself costs almost nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.errors import (
        AgentError,
        ArtifactError,
        CaseError,
        CaseTimeout,
        ConfigError,
        ExtensionError,
        FixtureError,
        HarnessError,
        HistoryError,
        MergeError,
        ReplayError,
        SuiteError,
        UsageError,
    )
    from harness.fixtures.suite import Suite, load_suite
    from harness.grading.result import GradeContext, Grader, GradeResult
    from harness.messages import (
        Event,
        Message,
        ModelProvider,
        ModelReplied,
        ModelReply,
        Observer,
        RecordedCall,
        ToolCall,
        ToolDispatched,
        ToolSpec,
        Usage,
    )
    from harness.pipeline.dispatch import run_suite
    from harness.pipeline.setup import AgentFactory, Setup
    from harness.recording import RunRecord
    from harness.replay.agent import Agent, ReferenceAgent
    from harness.replay.context import CaseContext
    from harness.replay.tools import EchoTool, Tool, ToolOutput, ToolRegistry
    from harness.reports.model import CaseReport, SuiteReport
    from harness.version import __version__

__all__ = [
    "Agent",
    "AgentError",
    "AgentFactory",
    "ArtifactError",
    "CaseContext",
    "CaseError",
    "CaseReport",
    "CaseTimeout",
    "ConfigError",
    "EchoTool",
    "Event",
    "ExtensionError",
    "FixtureError",
    "GradeContext",
    "GradeResult",
    "Grader",
    "HarnessError",
    "HistoryError",
    "MergeError",
    "Message",
    "ModelProvider",
    "ModelReplied",
    "ModelReply",
    "Observer",
    "RecordedCall",
    "ReferenceAgent",
    "ReplayError",
    "RunRecord",
    "Setup",
    "Suite",
    "SuiteError",
    "SuiteReport",
    "Tool",
    "ToolCall",
    "ToolDispatched",
    "ToolOutput",
    "ToolRegistry",
    "ToolSpec",
    "Usage",
    "UsageError",
    "__version__",
    "load_suite",
    "run_suite",
]

_HOMES = {
    "harness.errors": (
        "AgentError ArtifactError CaseError CaseTimeout ConfigError ExtensionError FixtureError "
        "HarnessError HistoryError MergeError ReplayError SuiteError UsageError"
    ),
    "harness.fixtures.suite": "Suite load_suite",
    "harness.grading.result": "GradeContext GradeResult Grader",
    "harness.messages": (
        "Event Message ModelProvider ModelReplied ModelReply Observer RecordedCall ToolCall "
        "ToolDispatched ToolSpec Usage"
    ),
    "harness.pipeline.setup": "AgentFactory Setup",
    "harness.pipeline.dispatch": "run_suite",
    "harness.recording": "RunRecord",
    "harness.replay.agent": "Agent ReferenceAgent",
    "harness.replay.context": "CaseContext",
    "harness.replay.tools": "EchoTool Tool ToolOutput ToolRegistry",
    "harness.reports.model": "CaseReport SuiteReport",
    "harness.version": "__version__",
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names.split()}


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

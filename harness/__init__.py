"""harness: a deterministic replay regression gate for AI agent loops."""

from __future__ import annotations

from harness.agent import MAX_TOOL_ITERATIONS, Agent, ReferenceAgent
from harness.case import (
    Case,
    Expects,
    LlmTrace,
    PayloadExpect,
    ScriptedCall,
    Step,
    TextReply,
    ToolCallsReply,
    Turn,
)
from harness.config import Config, load_config
from harness.errors import (
    AgentError,
    ArtifactError,
    CaseError,
    ConfigError,
    FixtureError,
    HarnessError,
    HistoryError,
    ReplayError,
    SuiteError,
    UsageError,
)
from harness.grader import ExpectationsGrader, Grader, GradeResult, evaluate_expects
from harness.loader import load_case
from harness.observer import (
    Event,
    ModelReplied,
    ObservedProvider,
    Observer,
    RecordingObserver,
    ToolDispatched,
)
from harness.provider import Message, ModelProvider, ModelReply, ToolCall, Usage
from harness.record import RecordedCall, RunRecord
from harness.replay import ReplayProvider
from harness.report import CaseReport, SuiteReport
from harness.runner import AgentFactory, Setup, run_case, run_suite
from harness.suite import Suite, load_suite
from harness.tools import (
    EchoTool,
    RecordedTool,
    Tool,
    ToolOutput,
    ToolRegistry,
    ToolSpec,
    default_tools,
)
from harness.version import __version__
from harness.workspace import Workspace

__all__ = [
    "MAX_TOOL_ITERATIONS",
    "Agent",
    "AgentError",
    "AgentFactory",
    "ArtifactError",
    "Case",
    "CaseError",
    "CaseReport",
    "Config",
    "ConfigError",
    "EchoTool",
    "Event",
    "ExpectationsGrader",
    "Expects",
    "FixtureError",
    "GradeResult",
    "Grader",
    "HarnessError",
    "HistoryError",
    "LlmTrace",
    "Message",
    "ModelProvider",
    "ModelReplied",
    "ModelReply",
    "ObservedProvider",
    "Observer",
    "PayloadExpect",
    "RecordedCall",
    "RecordedTool",
    "RecordingObserver",
    "ReferenceAgent",
    "ReplayError",
    "ReplayProvider",
    "RunRecord",
    "ScriptedCall",
    "Setup",
    "Step",
    "Suite",
    "SuiteError",
    "SuiteReport",
    "TextReply",
    "Tool",
    "ToolCall",
    "ToolCallsReply",
    "ToolDispatched",
    "ToolOutput",
    "ToolRegistry",
    "ToolSpec",
    "Turn",
    "Usage",
    "UsageError",
    "Workspace",
    "__version__",
    "default_tools",
    "evaluate_expects",
    "load_case",
    "load_config",
    "load_suite",
    "run_case",
    "run_suite",
]

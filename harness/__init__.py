"""harness: a deterministic replay regression gate for AI agent loops."""

from __future__ import annotations

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
from harness.fixtures.format import (
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
from harness.fixtures.reading import load_case
from harness.fixtures.suite import Suite, load_suite
from harness.grading.expectations import ExpectationsGrader, evaluate_expects
from harness.grading.result import Grader, GradeResult
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
from harness.pipeline.case import run_case
from harness.pipeline.setup import AgentFactory, Setup
from harness.pipeline.suite import run_suite
from harness.recording import ObservedProvider, RecordingObserver, RunRecord
from harness.replay.agent import MAX_TOOL_ITERATIONS, Agent, ReferenceAgent
from harness.replay.provider import ReplayProvider
from harness.replay.tools import (
    EchoTool,
    RecordedTool,
    Tool,
    ToolOutput,
    ToolRegistry,
    default_tools,
)
from harness.replay.workspace import Workspace
from harness.reports.model import CaseReport, SuiteReport
from harness.version import __version__

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
    "default_tools",
    "evaluate_expects",
    "load_case",
    "load_config",
    "load_suite",
    "run_case",
    "run_suite",
]

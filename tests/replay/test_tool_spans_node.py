"""Tool spans from a Node.js agent instrumented with the OpenTelemetry Node SDK.

Marked `node`: `nox -s node_clients` installs the agent's npm packages, then runs these.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from tests.conftest import WriteFixture
from tests.replay.test_tool_spans import ECHO_42

pytestmark = pytest.mark.node

AGENTS = Path(__file__).resolve().parents[1] / "agents" / "otel_node"
AGENT = AGENTS / "agent.mjs"
VERCEL_AGENT = AGENTS / "vercel_agent.mjs"


def run_node(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    bug: str,
    agent: Path = AGENT,
) -> tuple[int, dict[str, Any]]:
    node = shutil.which("node")
    assert node is not None, "Node.js is needed for the node tests"
    assert (AGENT.parent / "node_modules").is_dir(), "run `nox -s node_clients` (npm install)"
    monkeypatch.setenv("HARNESS_TEST_BUG", bug)
    suite = write_fixture("echo.json", ECHO_42).parent
    report = tmp_path / "report.json"
    flags = ["--agent-command", f"{node} {agent}", "--tool-spans", "--json", str(report)]
    status = main(["run", "--suite", str(suite), *flags])
    return status, json.loads(report.read_text())


def test_an_honest_node_agent_passes_from_its_spans(
    write_fixture: WriteFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, doc = run_node(write_fixture, tmp_path, monkeypatch, "")
    case = doc["cases"][0]
    assert case["error"] is None
    assert status == 0
    assert [(c["arguments"], c["observed"]) for c in case["tool_calls"]] == [
        ('{"message":"order 42"}', "span"),
        ('{"message":"order 7"}', "span"),
    ]


@pytest.mark.parametrize(
    ("bug", "failing"),
    [
        ("wrong_arguments", 'tool_arguments_contain("echo"[0], "order 42")'),
        ("hidden_failure", "all_tools_succeeded(true)"),
    ],
)
def test_broken_node_agents_fail_their_fixture(
    bug: str,
    failing: str,
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    status, doc = run_node(write_fixture, tmp_path, monkeypatch, bug)
    case = doc["cases"][0]
    assert case["error"] is None
    assert status == 1
    assert {grade["check"]: grade["passed"] for grade in case["grades"]}[failing] is False


def test_a_vercel_ai_sdk_agent_is_recorded_from_its_telemetry(
    write_fixture: WriteFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`generateText` with a tool, its spans from the AI SDK's own OpenTelemetry integration."""
    status, doc = run_node(write_fixture, tmp_path, monkeypatch, "", VERCEL_AGENT)
    case = doc["cases"][0]
    assert case["error"] is None
    assert status == 0
    assert [(c["arguments"], c["result"], c["observed"]) for c in case["tool_calls"]] == [
        ('{"message":"order 42"}', "order 42", "span"),
        ('{"message":"order 7"}', "order 7", "span"),
    ]


def test_a_failing_vercel_ai_sdk_tool_fails_its_fixture(
    write_fixture: WriteFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, doc = run_node(write_fixture, tmp_path, monkeypatch, "hidden_failure", VERCEL_AGENT)
    case = doc["cases"][0]
    assert case["error"] is None
    assert status == 1
    assert [c["success"] for c in case["tool_calls"]] == [False, False]

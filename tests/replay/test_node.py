"""Node.js agents over the wire: plain `fetch` on Chat Completions, and the official `openai`
package in Responses mode, run through `--agent-command` (marker `node`: the nox
`node_clients` session installs the package and runs these)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from tests.builders import echo_case, echo_trace
from tests.conftest import WriteFixture

pytestmark = pytest.mark.node

AGENTS = Path(__file__).resolve().parents[1] / "agents"
ROUND_TRIP = {
    "response_contains": ["hello"],
    "tools_used": ["echo"],
    "exact_tool_calls": 1,
    "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
    "requests": {"tools_offered": ["echo"], "system_prompt_contains": ["helpful"]},
}


def node() -> str:
    found = shutil.which("node")
    assert found, "the node tests need Node.js on PATH"
    return found


def run_node(
    write_fixture: WriteFixture, script: str, monkeypatch: pytest.MonkeyPatch, **env: str
) -> tuple[int, Any]:
    assert os.environ.get("HARNESS_NODE_MODULES"), "run these through `nox -s node_clients`"
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    suite = write_fixture("a.json", echo_trace(expects=ROUND_TRIP)).parent
    argv = ["run", "--suite", str(suite), "--json", str(suite / "r")]
    status = main([*argv, "--agent-command", f"{node()} {AGENTS / script}"])
    (case,) = json.loads((suite / "r").read_text())["cases"]
    return status, case


@pytest.mark.parametrize("stream", ["0", "1"], ids=["create", "stream-helper"])
def test_the_openai_npm_package_in_responses_mode(
    stream: str, write_fixture: WriteFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`responses.create` and `responses.stream().finalResponse()` both replay green."""
    status, case = run_node(write_fixture, "node_responses_agent.mjs", monkeypatch, STREAM=stream)
    assert (status, case["error"]) == (0, None)
    assert case["requests"][0]["path"] == "/v1/responses"
    assert case["tool_calls"][0]["result"] == "hello"


def test_a_broken_node_agent_fails(
    write_fixture: WriteFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same agent with a wrong tool result fails the fixture."""
    status, case = run_node(write_fixture, "node_responses_agent.mjs", monkeypatch, BROKEN="1")
    assert (status, case["error"]) == (1, None)
    failed = [grade["check"] for grade in case["grades"] if not grade["passed"]]
    assert failed == ['tool_results_contain("echo", "hello")']


def test_a_fetch_agent_on_chat_completions(
    write_fixture: WriteFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No package at all: the built-in fetch against /v1/chat/completions."""
    status, case = run_node(write_fixture, "node_agent.mjs", monkeypatch)
    assert (status, case["error"]) == (0, None)
    assert case["requests"][0]["path"] == "/v1/chat/completions"


@pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "process-per-case"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_node_agent_plays_case_after_case_in_one_process(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reuse: bool,
    jobs: str,
) -> None:
    """The documented lines alone: every case green, one process per worker with reuse."""
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv("AGENT_PIDS", str(pids))
    for name in ("one", "two", "three", "four"):
        expects = {
            "response_contains": [name],
            "workspace": {"file_contains": [{"path": "answer.txt", "needle": name}]},
        }
        write_fixture(f"{name}.json", echo_case(name, **expects))
    suite = tmp_path / "suite"
    command = f"{node()} {AGENTS / 'node_reuse_agent.mjs'}"
    argv = ["run", "--suite", str(suite), "--json", str(tmp_path / "r"), "--jobs", jobs]
    status = main([*argv, "--agent-command", command, *(["--agent-reuse"] if reuse else [])])
    cases = json.loads((tmp_path / "r").read_text())["cases"]
    assert [case["error"] for case in cases] == [None] * 4
    assert status == 0
    assert len(list(pids.iterdir())) == (int(jobs) if reuse else 4)

"""agent_reuse end to end: one agent process per worker, everything per case kept per case.

Each test runs `harness run` in a child process with `tests/agents/reuse_agent.py` (a stdlib
agent speaking through `harness.agent_io`) and checks the reports, the processes the agent
noted, and that none of them is alive after the run.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.builders import assert_timed, echo_case
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "tests" / "agents" / "reuse_agent.py"
TIMINGS = ("started_at", "duration_s", "started_s", "recorded_at", "run_id")


def suite(write_fixture: WriteFixture, *names: str) -> None:
    for name in names:
        write_fixture(f"{name}.json", echo_case(name))


def harness_run(
    tmp_path: Path, *args: str, agent_args: str = "", reuse: bool = True
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`harness run` on tmp_path/suite with the reuse agent; its exit and JSON report."""
    pids = tmp_path / "pids"
    pids.mkdir(exist_ok=True)
    command = f"{sys.executable} {AGENT} pids={pids} {agent_args}"
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.harness]\nsuite_dir = "suite"\ncase_timeout = 30\nagent_command = "{command}"\n'
    )
    flags = ["--agent-reuse"] if reuse else []
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--format", "json", *flags, *args],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    try:
        document = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"stdout is not JSON: {done.stdout[:500]!r}; stderr: {done.stderr[-2000:]}")
    return done, document


def cases_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["name"]: case for case in document["cases"]}


def noted(tmp_path: Path) -> list[int]:
    """The ids of the agent processes started in the run."""
    return [int(path.stem) for path in (tmp_path / "pids").glob("*.pid")]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] != b"Z"


def untimed(value: Any) -> Any:
    """A JSON report without its timings."""
    if isinstance(value, dict):
        return {key: untimed(item) for key, item in value.items() if key not in TIMINGS}
    if isinstance(value, list):
        return [untimed(item) for item in value]
    return value


def history(path: Path) -> list[tuple[Any, ...]]:
    """The history's rows, timings and run ids left out."""
    rows: list[tuple[Any, ...]] = []
    with sqlite3.connect(path) as db:
        for table in ("runs", "case_results"):
            cursor = db.execute(f"SELECT * FROM {table} ORDER BY 2")
            names = [column[0] for column in cursor.description]
            for row in cursor:
                rows.append(tuple(v for k, v in zip(names, row, strict=True) if k not in TIMINGS))
    return rows


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_reuse_writes_the_same_reports_and_history_as_a_process_per_case(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str
) -> None:
    """JSON, JUnit and history are identical with and without reuse, timings aside."""
    suite(write_fixture, "one", "two", "three", "four")
    outputs = {}
    for reuse in (True, False):
        out = tmp_path / ("reused" if reuse else "fresh")
        args = ["--jobs", jobs, "--junit", f"{out}.xml", "--history", f"{out}.db"]
        done, document = harness_run(tmp_path, *args, reuse=reuse)
        assert done.returncode == 0, document
        junit = re.sub(r' (time|timestamp)="[^"]*"', "", Path(f"{out}.xml").read_text())
        outputs[reuse] = (untimed(document), junit, history(Path(f"{out}.db")))
    assert outputs[True] == outputs[False]
    assert cases_of(outputs[True][0])["two"]["stderr"] == "playing two\n"


def test_a_reused_agent_times_each_case_on_its_own_clock(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """One process plays every case; each case's calls are timed from that case's start."""
    suite(write_fixture, "one", "two", "three")
    done, document = harness_run(tmp_path)
    assert done.returncode == 0, document
    assert len(noted(tmp_path)) == 1
    for case in document["cases"]:
        assert_timed(case["tool_calls"], case["duration_s"])


@pytest.mark.parametrize(("jobs", "processes"), [("1", 1), ("2", 2)])
def test_each_worker_starts_the_agent_once(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str, processes: int
) -> None:
    """Four cases are played by one agent process per worker, none left after the run."""
    suite(write_fixture, "one", "two", "three", "four")
    done, _ = harness_run(tmp_path, "--jobs", jobs)
    assert done.returncode == 0
    assert len(noted(tmp_path)) == processes
    assert [pid for pid in noted(tmp_path) if alive(pid)] == []


def test_without_reuse_each_case_starts_the_agent(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """Without agent_reuse every case has a process of its own, as before."""
    suite(write_fixture, "one", "two", "three")
    done, _ = harness_run(tmp_path, reuse=False)
    assert done.returncode == 0
    assert len(noted(tmp_path)) == 3


def test_an_agent_that_keeps_its_conversation_is_caught_on_the_second_case(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """The second case errors, naming the first, whose conversation it carried."""
    suite(write_fixture, "a-first", "b-second")
    done, document = harness_run(tmp_path, agent_args="forget")
    assert done.returncode == 1
    cases = cases_of(document)
    assert cases["a-first"]["passed"]
    assert cases["b-second"]["error"].startswith(
        "the agent kept the conversation of case 'a-first'"
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("fault", "reason"),
    [("crash", "the agent process exited with status 3"), ("hang", "case timed out after 2s")],
)
def test_a_crash_or_hang_errors_only_its_case(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str, fault: str, reason: str
) -> None:
    """The faulty case errors; a fresh process plays the next cases green; none is left."""
    suite(write_fixture, "a", "b", "c", "d", "e")
    args = ("--jobs", jobs, "--case-timeout", "2")
    done, document = harness_run(tmp_path, *args, agent_args=f"{fault}=b")
    assert done.returncode == 1
    cases = cases_of(document)
    assert cases["b"]["error"].startswith(reason)
    assert sorted(name for name, case in cases.items() if case["passed"]) == ["a", "c", "d", "e"]
    # Serially the case after the fault has a fresh process; in jobs, the other worker may
    # play every case left, so the faulty one's replacement may never start.
    assert len(noted(tmp_path)) in ((2,) if jobs == "1" else (2, 3))
    assert [pid for pid in noted(tmp_path) if alive(pid)] == []


@pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "process-per-case"])
def test_a_command_agent_writes_in_its_case_workspace(
    write_fixture: WriteFixture, tmp_path: Path, reuse: bool
) -> None:
    """The agent is told its workspace; a `workspace` check sees what it wrote there."""
    files = {"file_contains": [{"path": "answer.txt", "needle": "said: one"}]}
    write_fixture("one.json", echo_case("one", workspace=files))
    write_fixture("two.json", echo_case("two", workspace={"file_absent": ["other.txt"]}))
    done, document = harness_run(tmp_path, reuse=reuse)
    assert done.returncode == 0, document
    assert cases_of(document)["one"]["checks"]["passed"] == 3


SPANNING = """
import json
from openai import OpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from harness.agent_io import cases

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # configured by env only
tracer = provider.get_tracer("agent")
client = OpenAI()  # the same base URL and key for every case
for case in cases():
    messages = []
    for user_input in case:
        messages.append({"role": "user", "content": user_input})
        while True:
            reply = client.chat.completions.create(model="m", messages=messages)
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                text = json.loads(call.function.arguments)["message"]
                with tracer.start_as_current_span("execute_tool echo") as span:
                    span.set_attribute("gen_ai.operation.name", "execute_tool")
                    span.set_attribute("gen_ai.tool.name", call.function.name)
                    span.set_attribute("gen_ai.tool.call.id", call.id)
                    span.set_attribute("gen_ai.tool.call.arguments", call.function.arguments)
                    span.set_attribute("gen_ai.tool.call.result", text)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        case.respond(message.content or "")
provider.shutdown()
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_reused_processs_requests_and_spans_go_to_the_case_it_plays(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str
) -> None:
    """One key and one span token for the process's life; each case gets its own spans."""
    for name in ("one", "two", "three", "four"):
        expects = {"tool_arguments_contain": [{"tool": "echo", "needle": name}]}
        write_fixture(f"{name}.json", echo_case(name, **expects))
    (tmp_path / "spanning.py").write_text(SPANNING)
    command = f"{sys.executable} {tmp_path / 'spanning.py'}"
    args = ("--jobs", jobs, "--tool-spans", "--agent-command", command)
    done, document = harness_run(tmp_path, *args)
    assert [case["error"] for case in document["cases"]] == [None] * 4
    assert done.returncode == 0
    for name, case in cases_of(document).items():
        assert [call["observed"] for call in case["tool_calls"]] == ["span"]
        assert name in case["tool_calls"][0]["arguments"]


def test_a_run_stopped_by_sigterm_leaves_no_reused_process(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """SIGTERM mid-case: the harness stops its workers, and each ends its agent's group."""
    import signal
    import time

    suite(write_fixture, "a", "b")
    pids = tmp_path / "pids"
    pids.mkdir()
    command = f"{sys.executable} {AGENT} pids={pids} hang=a"
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.harness]\nsuite_dir = "suite"\nagent_command = "{command}"\nagent_reuse = true\n'
    )
    harness = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", "--format", "json"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(3000):  # the agent notes itself at start, then hangs in case a
            if noted(tmp_path):
                break
            time.sleep(0.01)
        time.sleep(0.5)
        harness.send_signal(signal.SIGTERM)
        assert harness.wait(timeout=60) == 143
    finally:
        harness.kill()
    (agent,) = noted(tmp_path)
    for _ in range(300):
        if not alive(agent):
            break
        time.sleep(0.01)
    assert not alive(agent)

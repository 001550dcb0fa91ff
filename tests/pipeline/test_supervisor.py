"""Agents contained: run as `harness run` is, they err only their own case, serially and in jobs.

Each test runs the real command in a child process, with the misbehaving agents of
`tests.contained_agents` beside well-behaved cases, and checks the JSON on stdout parses, each
case's verdict, the captured output in the reports, and that no process they started is alive.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.builders import echo_trace
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]
AGENT = "tests.contained_agents:misbehaving"


def harness_run(
    tmp_path: Path, *args: str, config: str = "", timeout: float = 120
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    pids = tmp_path / "pids"
    pids.mkdir(exist_ok=True)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.harness]\nsuite_dir = "suite"\ncase_timeout = 30\n{config}'
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "HARNESS_TEST_PIDS": str(pids)}
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--format", "json", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    try:
        document = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"stdout is not JSON: {done.stdout[:500]!r}; stderr: {done.stderr[-2000:]}")
    return done, document


def suite(write_fixture: WriteFixture, *names: str) -> None:
    for name in ("good-first", *names, "good-last"):
        write_fixture(f"{name}.json", echo_trace(model_name=name))


def cases_of(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["name"]: case for case in document["cases"]}


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] != b"Z"


def noted_pids(tmp_path: Path) -> list[int]:
    return [int(path.read_text()) for path in (tmp_path / "pids").glob("*.pid")]


EXITS = {
    "exit3": "the agent called sys.exit(3)",
    "exit0": "the agent called sys.exit(0)",
    "factory-exit": "the agent called sys.exit(5)",
    "keyboard": "the agent raised KeyboardInterrupt itself",
    "generator-exit": "the agent raised GeneratorExit: closed",
    "custom-base": "the agent raised _Custom: custom base exception",
    "hard-exit4": "the agent's process exited with status 4 while running this case",
    "hard-exit0": "the agent's process exited with status 0 while running this case",
}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_exits_and_crashes_error_only_their_own_case(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str
) -> None:
    """sys.exit, os._exit, KeyboardInterrupt and other BaseExceptions: one errored case each."""
    suite(write_fixture, *EXITS)
    done, document = harness_run(tmp_path, "--agent", AGENT, "--jobs", jobs, "--junit", "j.xml")
    assert done.returncode == 1, done.stderr
    cases = cases_of(document)
    assert cases["good-first"]["passed"]
    assert cases["good-last"]["passed"]
    for name, reason in EXITS.items():
        assert cases[name]["passed"] is False
        assert reason in cases[name]["error"], (name, cases[name]["error"])
    assert document["total"] == len(EXITS) + 2
    assert (tmp_path / "j.xml").is_file()
    assert "Traceback" not in done.stderr


def test_all_cases_exiting_zero_never_pass(write_fixture: WriteFixture, tmp_path: Path) -> None:
    """An agent that calls sys.exit(0) or os._exit(0) in every case cannot make the run green."""
    for name in ("exit0", "hard-exit0"):
        write_fixture(f"{name}.json", echo_trace(model_name=name))
    done, document = harness_run(tmp_path, "--agent", AGENT)
    assert done.returncode == 1
    assert document["all_passed"] is False
    assert document["errored"] == 2


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_printed_output_is_captured_into_the_reports(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str
) -> None:
    """print, raw fd writes and a child's output land in the case's reports, redacted."""
    suite(write_fixture, "printer")
    done, document = harness_run(tmp_path, "--agent", AGENT, "--jobs", jobs, "--junit", "j.xml")
    assert done.returncode == 0, done.stderr
    printer = cases_of(document)["printer"]
    assert printer["passed"] is True
    for line in ("DEBUG: hello from print", "raw fd write", "from a child process"):
        assert line in printer["stdout"]
    assert "sk-abcdefghijklmnopqrstuvwxyz" not in printer["stdout"]
    assert "REDACTED" in printer["stdout"]
    assert printer["stderr"] == "WARN: on stderr\n"
    assert "DEBUG" not in done.stderr
    assert "stdout" not in cases_of(document)["good-first"]  # nothing printed, nothing added
    testcase = next(
        element
        for element in ET.parse(tmp_path / "j.xml").iter("testcase")
        if element.get("name") == "printer"
    )
    out = testcase.findtext("system-out") or ""
    assert out.index("final response:") < out.index("DEBUG: hello from print")
    assert (testcase.findtext("system-err") or "").strip() == "WARN: on stderr"


def test_live_output_goes_to_stderr_and_json_stays_valid(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """-s shows the agent's output as it comes, on stderr; stdout carries only the report."""
    suite(write_fixture, "printer")
    done, document = harness_run(tmp_path, "--agent", AGENT, "-s")
    assert done.returncode == 0
    assert "DEBUG: hello from print" in done.stderr
    assert "from a child process" in done.stderr
    assert "stdout" not in cases_of(document)["printer"]


def test_a_flood_is_cut_with_the_marker_and_errors_its_case(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """50 MB of output: the report keeps the cap and the marker; the case is graded, then errors."""
    suite(write_fixture, "flood")
    done, document = harness_run(tmp_path, "--agent", AGENT, config="max_output_chars = 1000\n")
    assert done.returncode == 1
    flood = cases_of(document)["flood"]
    assert flood["stdout"] == "x" * 1000 + f"…[truncated {50 * (1 << 20) - 1000} chars]"
    assert "over the capture limit of 1000" in flood["error"]
    assert flood["grades"]
    assert all(grade["passed"] for grade in flood["grades"])
    assert cases_of(document)["good-last"]["passed"] is True


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_no_process_an_in_process_agent_starts_outlives_its_case(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str
) -> None:
    """A child and a grandchild that left the session are both gone when the run ends."""
    suite(write_fixture, "spawner")
    done, document = harness_run(tmp_path, "--agent", AGENT, "--jobs", jobs)
    assert done.returncode == 0, document
    pids = noted_pids(tmp_path)
    assert len(pids) == 2
    assert [pid for pid in pids if alive(pid)] == []


SPAWNING_COMMAND = """
import json, os, subprocess, sys
for line in sys.stdin:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    grandchild = subprocess.run(
        [sys.executable, "-c",
         "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', "
         "'import time; time.sleep(300)'], stdout=subprocess.DEVNULL, "
         "stderr=subprocess.DEVNULL); print(p.pid)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    folder = os.environ["HARNESS_TEST_PIDS"]
    for pid in (str(child.pid), grandchild):
        open(os.path.join(folder, pid + ".pid"), "w").write(pid)
    sys.stderr.write("agent process says hi\\n")
    print(json.dumps({"response": "hello"}), flush=True)
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_no_process_a_subprocess_agent_starts_outlives_its_case(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str
) -> None:
    """agent_command's children and orphaned grandchildren die with its process group."""
    (tmp_path / "agent.py").write_text(textwrap.dedent(SPAWNING_COMMAND))
    for name in ("one", "two"):
        write_fixture(f"{name}.json", echo_trace(model_name=name))
    done, document = harness_run(
        tmp_path, "--jobs", jobs, config=f'agent_command = "{sys.executable} agent.py"\n'
    )
    assert done.returncode == 1  # the agent never calls the model: the replay says so
    pids = noted_pids(tmp_path)
    assert len(pids) == 4
    assert [pid for pid in pids if alive(pid)] == []
    assert all(case["stderr"] == "agent process says hi\n" for case in document["cases"])


def test_an_agent_allocating_without_end_errors_its_case_under_the_memory_limit(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """agent_memory_mb: the hog's case errors; the cases after it run in a sound worker."""
    suite(write_fixture, "hog")
    done, document = harness_run(tmp_path, "--agent", AGENT, config="agent_memory_mb = 200\n")
    assert done.returncode == 1
    cases = cases_of(document)
    assert "memory" in cases["hog"]["error"]
    assert cases["good-first"]["passed"]
    assert cases["good-last"]["passed"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_hung_agent_times_out_alone_and_its_worker_is_replaced(
    write_fixture: WriteFixture, tmp_path: Path, jobs: str
) -> None:
    """The timer stops the hung case with its record so far; the next cases run and pass."""
    suite(write_fixture, "hang", "printer")
    done, document = harness_run(tmp_path, "--agent", AGENT, "--jobs", jobs, "--case-timeout", "1")
    assert done.returncode == 1
    cases = cases_of(document)
    assert cases["hang"]["error"].startswith("case timed out after 1s (case_timeout)")
    passed = sorted(name for name, case in cases.items() if case["passed"])
    assert passed == ["good-first", "good-last", "printer"]


def test_processes_are_ended_when_their_case_ends_not_at_the_end_of_the_run(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """The case after the spawner, in the same worker, finds none of its processes alive."""
    suite(write_fixture, "spawner", "verify-reaped")
    done, document = harness_run(tmp_path, "--agent", AGENT)
    assert len(noted_pids(tmp_path)) == 2
    verify = cases_of(document)["verify-reaped"]
    assert verify["error"] is None
    assert verify["passed"] is True
    assert done.returncode == 0


def test_a_worker_that_never_answers_is_killed_past_its_deadline(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """An agent the timer cannot stop: the supervisor kills its worker, the next case runs."""
    suite(write_fixture, "deaf")
    done, document = harness_run(tmp_path, "--agent", AGENT, "--case-timeout", "1")
    assert done.returncode == 1
    cases = cases_of(document)
    assert cases["deaf"]["error"] == (
        "case timed out after 1s (case_timeout); the agent's process did not answer and was killed"
    )
    assert cases["good-last"]["passed"] is True

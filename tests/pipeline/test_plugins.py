"""Project code never decides the exit status: what its modules do while imported, built or
grading can only exit 2 (it cannot load) or error its case, never end the run with 0.

Each test writes a project module that misbehaves, names it in `[tool.harness]`, and runs the
real `harness run` or `harness check` in a child process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.builders import echo_trace

REPO = Path(__file__).resolve().parents[2]

AT_IMPORT = {
    "sys.exit": "import sys\nsys.exit(0)",
    "os._exit": "import os\nos._exit(0)",
    "posix._exit": "import posix\nposix._exit(0)",
    "execv": "import os\nos.execv('/bin/true', ['true'])",
    "keyboard": "raise KeyboardInterrupt",
    "kill": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
}

GOOD_AGENT = """
from harness.pipeline.setup import reference_agent

def factory(context):
    return reference_agent(context)
"""

GRADER = """
from harness.grading.result import GradeResult

class Grader:
    def grade(self, case, record, context):
        {body}

def factory():
    return Grader()
"""


def project(tmp_path: Path, module: str, config: str, cases: int = 2) -> None:
    """A project folder: one module of its own, a config naming it, and a suite."""
    (tmp_path / "project_code.py").write_text(module, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.harness]\nsuite_dir = "suite"\ncase_timeout = 3\n{config}\n', encoding="utf-8"
    )
    suite = tmp_path / "suite"
    suite.mkdir()
    for index in range(cases):
        trace = echo_trace(model_name=f"case-{index}")
        (suite / f"case_{index}.json").write_text(json.dumps(trace), encoding="utf-8")


def harness(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "harness", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize(("key", "value"), [("agent", "factory"), ("tools", "tools")])
@pytest.mark.parametrize("how", sorted(AT_IMPORT))
def test_a_module_that_ends_the_process_at_import_exits_2(
    tmp_path: Path, command: str, key: str, value: str, how: str
) -> None:
    """An agent or tools module that exits, execs, dies or raises Ctrl-C while imported: exit
    2, one line naming the key, no report claiming anything."""
    project(tmp_path, AT_IMPORT[how], f'{key} = "project_code:{value}"')
    done = harness(tmp_path, command, "--json", "out.json") if command == "run" else None
    done = done or harness(tmp_path, command)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"[tool.harness].{key}" in lines[0]
    assert "project_code" in lines[0]
    assert not (tmp_path / "out.json").exists()


def test_a_grader_module_that_exits_at_import_exits_2(tmp_path: Path) -> None:
    """A grader module's `os._exit(0)` at import is a config error of its own key."""
    project(tmp_path, "import os\nos._exit(0)", 'graders = ["project_code:factory"]')
    done = harness(tmp_path, "run")
    assert done.returncode == 2
    assert "[tool.harness].graders[0]" in done.stderr
    assert "exit status 0" in done.stderr


def test_a_module_that_hangs_at_import_exits_2_in_time(tmp_path: Path) -> None:
    """A module that never finishes importing is named once the case timeout passes."""
    project(tmp_path, "import time\ntime.sleep(600)", 'agent = "project_code:factory"')
    done = harness(tmp_path, "run")
    assert done.returncode == 2
    assert "did not finish within 3s" in done.stderr


def test_what_a_module_prints_at_import_never_reaches_the_json_on_stdout(tmp_path: Path) -> None:
    """`--format json`'s stdout is the document alone; the module's print goes to stderr."""
    module = "print('hello from import')\n" + GOOD_AGENT
    project(tmp_path, module, 'agent = "project_code:factory"')
    done = harness(tmp_path, "run", "--format", "json")
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    assert document["all_passed"] is True
    assert "hello from import" in done.stderr


@pytest.mark.parametrize(
    "body",
    [
        "import posix; posix._exit(0)",
        "import os; os.execv('/bin/true', ['true'])",
        "import sys; sys.exit(0)",
        "raise KeyboardInterrupt",
    ],
    ids=["posix._exit", "execv", "sys.exit", "keyboard"],
)
def test_a_grader_that_ends_its_process_while_grading_errors_the_case(
    tmp_path: Path, body: str
) -> None:
    """Grading in a worker: the grader's exit or exec errors its case, the run exits 1."""
    project(tmp_path, GRADER.format(body=body), 'graders = ["project_code:factory"]')
    done = harness(tmp_path, "run", "--format", "json")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert document["total"] == 2
    assert all(case["error"] for case in document["cases"])


def test_a_grader_that_never_returns_times_out(tmp_path: Path) -> None:
    """A grader stuck in a loop errors its case after the case timeout; the run goes on."""
    body = "import time\n        time.sleep(600)"
    project(tmp_path, GRADER.format(body=body), 'graders = ["project_code:factory"]', cases=1)
    done = harness(tmp_path, "run", "--format", "json")
    assert done.returncode == 1, done.stderr
    (case,) = json.loads(done.stdout)["cases"]
    assert "the project's graders never finished" in case["error"]


def test_a_grader_returning_a_malformed_grade_errors_the_case(tmp_path: Path) -> None:
    """`GradeResult(passed="no")` is refused by name; the report is still written."""
    body = 'return [GradeResult(check="mine", passed="no", detail="")]'
    project(tmp_path, GRADER.format(body=body), 'graders = ["project_code:factory"]', cases=1)
    done = harness(tmp_path, "run", "--format", "json", "--junit", "out.xml")
    assert done.returncode == 1, done.stderr
    (case,) = json.loads(done.stdout)["cases"]
    assert "not a GradeResult" in case["error"]
    assert "passed='no'" in case["error"]
    assert (tmp_path / "out.xml").is_file()


def test_the_harness_process_never_imports_the_project_module(tmp_path: Path) -> None:
    """The module is imported in workers only: the parent's pid never writes its mark."""
    marks = tmp_path / "marks"
    marks.mkdir()
    module = (
        textwrap.dedent(
            f"""
        import os
        open(os.path.join({str(marks)!r}, str(os.getpid())), "w").close()
        """
        )
        + GOOD_AGENT
    )
    project(tmp_path, module, 'agent = "project_code:factory"')
    driver = (
        "import os, sys\n"
        "from harness._cli.main import main\n"
        f"open(os.path.join({str(marks)!r}, 'parent'), 'w').write(str(os.getpid()))\n"
        "sys.exit(main(['run']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", driver],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    parent = (marks / "parent").read_text()
    imported = {path.name for path in marks.iterdir()} - {"parent"}
    assert imported  # the probe and the worker imported it
    assert parent not in imported

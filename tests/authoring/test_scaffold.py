"""`harness init` end to end, in a temp git repository with an agent package of its own."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest

from harness._cli.commands.run import LIVE_MODE_MESSAGE
from harness._cli.main import main
from harness.authoring.pin import installed_pin
from harness.authoring.scaffold import noxfile_block
from harness.config import load_config
from harness.fixtures.format import LlmTrace
from harness.fixtures.json_schema import schema_text
from harness.version import __version__
from tests.test_ci_templates import called_sessions

REPO = Path(__file__).resolve().parents[2]
PIN = f"replay-harness=={__version__}"
AGENT = '''"""A stdlib agent: one model call per user turn, over the OpenAI-compatible endpoint."""
import ast
import json
import os
import sys
import urllib.request

messages = [{"role": "system", "content": "You are helpful."}]
for line in sys.stdin:
    messages.append({"role": "user", "content": json.loads(line)["user_input"]})
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "any", "messages": messages}).encode(),
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]},
    )
    with urllib.request.urlopen(request) as response:
        message = json.load(response)["choices"][0]["message"]
    messages.append(message)
    print(json.dumps({"response": message["content"]}), flush=True)
'''
PYPROJECT = """\
# The demo agent's project file; harness init must keep every byte of it.
[project]
name = "demo-agent"   # a comment on a value
version = "0.1.0"

[tool.ruff]
line-length = 90
"""
CREATED = [
    "evals/fixture.schema.json",
    "evals/regression/greeting.json",
    "evals/capability/greeting.json",
    "evals/live/greeting.json",
    "evals/README.md",
    "noxfile.py",
    ".github/workflows/harness.yml",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with a small agent package: a pyproject, a module, a stdlib agent."""
    root = tmp_path / "demo"
    (root / "demo_agent").mkdir(parents=True)
    (root / "demo_agent" / "__init__.py").write_text('"""The demo agent."""\n')
    (root / "demo_agent" / "wire.py").write_text(AGENT)
    (root / "pyproject.toml").write_text(PYPROJECT)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def harness(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m harness ARGS` in the project folder, with this checkout's harness."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` outside .git, by relative path."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts[:1]
    }


def nox_list(root: Path) -> str:
    """`nox -l` in `root`, where importing the harness fails (as beside a nox of its own)."""
    shadow = root.parent / "no-harness" / "harness"
    shadow.mkdir(parents=True, exist_ok=True)
    (shadow / "__init__.py").write_text("raise ImportError('nox runs without the harness')\n")
    done = subprocess.run(
        [sys.executable, "-m", "nox", "-l", "--no-color"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(shadow.parent)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_init_makes_a_gated_project_whose_suites_run_through_the_agent(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Suites, schema, config, noxfile and workflow; regression and capability pass, live fails."""
    command = f"{sys.executable} demo_agent/wire.py"
    assert main(["init", str(project), "--agent-command", command]) == 0
    out = capsys.readouterr().out
    for path in CREATED:
        assert (project / path).is_file(), path
        assert f"created    {path}" in out
    assert "added      [tool.harness] to pyproject.toml" in out
    assert "nox -s regression" in out.split("next:")[1]
    assert load_config(str(project / "pyproject.toml")).agent_command == command
    for suite in ("regression", "capability"):
        done = harness(project, "run", "--suite", f"evals/{suite}")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "\n1 passed in " in done.stdout
    done = harness(project, "run", "--suite", "evals/live", "--mode", "live")
    assert done.returncode == 2
    assert LIVE_MODE_MESSAGE in done.stderr
    check = harness(project, "check", *(f"--suite=evals/{s}" for s in ("regression", "live")))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "0 error(s)" in check.stdout


def test_the_examples_carry_a_schema_that_init_writes_beside_them(project: Path) -> None:
    """`$schema` names evals/fixture.schema.json, which they satisfy; the reference loop passes."""
    assert main(["init", str(project)]) == 0
    written = (project / "evals" / "fixture.schema.json").read_text()
    assert written == schema_text(LlmTrace)
    for suite in ("regression", "capability", "live"):
        path = project / "evals" / suite / "greeting.json"
        fixture = json.loads(path.read_text())
        assert (path.parent / fixture["$schema"]).resolve() == project / "evals/fixture.schema.json"
        jsonschema.validate(fixture, json.loads(written))
        assert fixture["expects"]["exact_tool_calls"] == 0
    for suite in ("regression", "capability"):  # no agent configured: the reference loop
        done = harness(project, "run", "--suite", f"evals/{suite}")
        assert done.returncode == 0, done.stdout + done.stderr


def test_an_example_fails_against_an_agent_that_drops_the_models_text(project: Path) -> None:
    """The example is no rubber stamp: an agent that asks the model but answers otherwise fails."""
    broken = AGENT.replace('message["content"]', '"I cannot answer that."')
    (project / "demo_agent" / "wire.py").write_text(broken)
    command = f"{sys.executable} demo_agent/wire.py"
    assert main(["init", str(project), "--agent-command", command]) == 0
    done = harness(project, "run", "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    case = json.loads(done.stdout)["cases"][0]
    assert case["error"] is None
    assert [grade["check"] for grade in case["grades"] if not grade["passed"]] == [
        'response_contains("How can I help")'
    ]


def test_a_second_run_changes_nothing_and_says_so(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every file is byte for byte as the first run left it; nothing is reported created."""
    assert main(["init", str(project), "--agent", "demo_agent.wire:build"]) == 0
    before = tree(project)
    capsys.readouterr()
    assert main(["init", str(project), "--agent", "demo_agent.wire:build"]) == 0
    out = capsys.readouterr().out
    assert tree(project) == before
    assert "created" not in out.replace("nothing created", "")
    assert "nothing created" in out
    assert "[tool.harness] is already there, left as it is" in out


def test_existing_files_are_kept_without_force_and_rewritten_with_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edited file survives a plain init; --force restores it; pyproject is never rewritten."""
    assert main(["init", str(project)]) == 0
    readme = project / "evals" / "README.md"
    original = readme.read_text()
    readme.write_text("our own notes\n")
    pyproject = (project / "pyproject.toml").read_bytes()
    capsys.readouterr()
    assert main(["init", str(project)]) == 0
    assert readme.read_text() == "our own notes\n"
    assert "kept       evals/README.md: exists (--force overwrites it)" in capsys.readouterr().out
    assert main(["init", str(project), "--force"]) == 0
    assert readme.read_text() == original
    out = capsys.readouterr().out
    assert "overwrote  evals/README.md" in out
    assert "unchanged  noxfile.py" in out
    assert (project / "pyproject.toml").read_bytes() == pyproject


def test_pyproject_is_appended_to_and_keeps_every_byte(project: Path) -> None:
    """The user's tables, comments and formatting stay; the new table is what init was told."""
    assert main(["init", str(project), "--agent", "demo_agent.wire:build"]) == 0
    text = (project / "pyproject.toml").read_text()
    assert text.startswith(PYPROJECT)
    assert text.count("[tool.harness]") == 1
    data = tomllib.loads(text)
    assert data["project"] == {"name": "demo-agent", "version": "0.1.0"}
    assert data["tool"]["ruff"] == {"line-length": 90}
    config = load_config(str(project / "pyproject.toml"))
    assert config.agent == "demo_agent.wire:build"
    assert config.agent_command is None
    assert config.suite_dir == os.path.relpath(project / "evals" / "regression")


def test_a_file_without_a_final_newline_and_with_crlf_stays_valid(project: Path) -> None:
    """The table starts on its own line, in the file's own line endings."""
    original = b'[project]\r\nname = "demo-agent"\r\nversion = "0.1.0"'
    (project / "pyproject.toml").write_bytes(original)
    assert main(["init", str(project), "--agent-command", 'say "hi"\tthere']) == 0
    raw = (project / "pyproject.toml").read_bytes()
    assert raw.startswith(original + b"\r\n\r\n[tool.harness]\r\n")
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert tomllib.loads(raw.decode())["tool"]["harness"]["agent_command"] == 'say "hi"\tthere'


def test_a_missing_pyproject_is_created_with_the_table_alone(tmp_path: Path) -> None:
    """Without a pyproject.toml, init writes one holding just [tool.harness]."""
    assert main(["init", str(tmp_path)]) == 0
    data = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    assert list(data) == ["tool"]
    assert list(data["tool"]) == ["harness"]
    assert load_config(str(tmp_path / "pyproject.toml")).agent is None


def test_an_existing_harness_table_is_left_alone(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project that configured the harness already keeps its table, and is told so."""
    own = PYPROJECT + '\n[tool.harness]\nsuite_dir = "tests/evals"  # ours\n'
    (project / "pyproject.toml").write_text(own)
    assert main(["init", str(project), "--agent", "demo_agent.wire:build", "--force"]) == 0
    assert (project / "pyproject.toml").read_text() == own
    assert "[tool.harness] is already there, left as it is" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("[project\n", "invalid TOML"),
        ("tool = {ruff = {line-length = 90}}\n", "add the table by hand"),
    ],
    ids=["invalid", "inline-tool-table"],
)
def test_a_pyproject_init_cannot_append_to_exits_two_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], content: str, reason: str
) -> None:
    """One line naming the file and why; no suite or noxfile is left half made."""
    (project / "pyproject.toml").write_text(content)
    assert main(["init", str(project)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "pyproject.toml" in err
    assert reason in err
    assert "Traceback" not in err
    assert sorted(tree(project)) == [
        "demo_agent/__init__.py",
        "demo_agent/wire.py",
        "pyproject.toml",
    ]
    assert (project / "pyproject.toml").read_text() == content


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "demo_agent.wire"], "--agent: expected MODULE:FACTORY"),
        (["--agent", "a:b", "--agent-command", "x"], "not allowed with argument"),
        (["--agent-command", "  "], "--agent-command: expected a value, got an empty string"),
        (["--ci", "jenkins"], "invalid choice"),
    ],
)
def test_bad_options_exit_two_with_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """A malformed option writes nothing and says what is wrong in one line."""
    assert main(["init", str(project), *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert not (project / "evals").exists()


def test_a_missing_target_folder_exits_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """init writes into an existing folder only."""
    assert main(["init", str(tmp_path / "nowhere")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_the_generated_noxfile_needs_only_nox_and_lists_every_session(project: Path) -> None:
    """Its imports are nox and the stdlib; `nox -l` works where no harness can be imported."""
    assert main(["init", str(project), "--harness", PIN]) == 0
    noxfile = (project / "noxfile.py").read_text()
    imported = set()
    for node in ast.walk(ast.parse(noxfile)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert "nox" in imported
    assert imported - {"nox"} <= sys.stdlib_module_names
    assert f'HARNESS = "{PIN}"' in noxfile
    listed = nox_list(project)
    workflow = called_sessions(project / ".github" / "workflows" / "harness.yml")
    assert workflow == {"regression", "capability", "live", "harness-check"}
    for session in workflow:
        assert f" {session} -> " in listed
    assert "* regression -> " in listed  # the default session: the gate
    assert "- live -> " in listed


def test_an_existing_noxfile_is_untouched_and_the_block_to_paste_is_printed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's noxfile stays as it is; the printed block, pasted in, adds the sessions."""
    own = (
        'import nox\n\n\n@nox.session\ndef tests(session: nox.Session) -> None:\n    """Ours."""\n'
    )
    (project / "noxfile.py").write_text(own)
    assert main(["init", str(project), "--harness", PIN]) == 0
    assert (project / "noxfile.py").read_text() == own
    out = capsys.readouterr().out
    head = "noxfile.py is yours, so it was not touched; add these lines to it:\n\n"
    assert head in out
    block = out.split(head)[1].split("\n\n\nnext:")[0]
    assert block == noxfile_block(PIN).rstrip("\n")
    (project / "noxfile.py").write_text(own + "\n\n" + block + "\n")
    listed = nox_list(project)
    for session in ("tests", "regression", "capability", "live", "harness-check"):
        assert f" {session} -> " in listed
    assert main(["init", str(project)]) == 0
    assert "add these lines" not in capsys.readouterr().out


def test_init_pins_the_harness_it_was_installed_from(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --harness, every written file names the harness this one came from."""
    expected = installed_pin(str(project)).requirement
    assert main(["init", str(project)]) == 0
    assert f"install the harness from: {expected}\n" in capsys.readouterr().out
    assert f"HARNESS = {json.dumps(expected)}" in (project / "noxfile.py").read_text()
    assert expected in (project / ".github" / "workflows" / "harness.yml").read_text()


def test_a_harness_requirement_on_many_lines_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--harness must be one printable line: it goes into Python and YAML text."""
    assert main(["init", str(project), "--harness", "replay-harness\nimport os"]) == 2
    assert "--harness: expected a pip requirement on one line" in capsys.readouterr().err
    assert not (project / "evals").exists()

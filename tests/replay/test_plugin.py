"""Bring your own agent: a project's agent and tools, plugged in by config or flag."""

from __future__ import annotations

import json
import textwrap
import uuid
from pathlib import Path

import pytest

from harness._cli.main import main
from harness.errors import ConfigError
from tests.builders import echo_trace, portable_regression
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]
REGRESSION = str(REPO / "evals" / "regression")


@pytest.mark.parametrize(
    "flags",
    [
        pytest.param(
            ["--agent", "tests.agents:sync_agent", "--tools", "tests.agents:upper_tools"],
            id="sync-class",
        ),
        pytest.param(["--agent", "tests.agents:openai_style_agent"], id="async-openai-style"),
    ],
)
def test_regression_suite_replays_green_through_test_agents(
    flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both test-defined agents pass the gated suite end to end through `harness run`."""
    report = tmp_path / "r.json"
    suite = portable_regression(tmp_path)
    assert main(["run", "--suite", suite, "--json", str(report), *flags]) == 0
    doc = json.loads(report.read_text())
    assert doc["passed"] == doc["total"] >= 8
    unicode_case = next(c for c in doc["cases"] if c["name"] == "unicode-tool-arguments-roundtrip")
    assert unicode_case["tool_calls"][0]["result"] == "naïve café 日本語 ✓"


def agent_module(tmp_path: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Write an agent module in a project outside the repo, and work from that project."""
    name = f"outside_agent_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.chdir(tmp_path)
    return name


OUTSIDE_AGENT = """
from harness.replay.agent import ReferenceAgent

class Loud:
    def __init__(self, inner):
        self.inner = inner
        self.turns = 0

    def turn(self, user_input):
        self.turns += 1
        return self.inner.turn(user_input)

def factory(context):
    return Loud(ReferenceAgent(context.provider, context.tools))
"""


def test_agent_module_outside_the_repo_plugged_in_by_config(
    tmp_path: Path,
    write_fixture: WriteFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`agent = "module:factory"` in pyproject.toml, resolved from the project's folder."""
    module = agent_module(tmp_path, OUTSIDE_AGENT, monkeypatch)
    write_fixture("a.json", echo_trace())
    write_fixture("b.json", echo_trace(model_name="fails", expects={"response_contains": ["zz"]}))
    config = tmp_path / "pyproject.toml"
    config.write_text(f'[tool.harness]\nsuite_dir = "suite"\nagent = "{module}:factory"\n')
    assert main(["run", "--config", str(config), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [(c["name"], c["passed"]) for c in doc["cases"]] == [
        ("single-tool-echo", True),
        ("fails", False),
    ]


MISBEHAVING = """
import time

class Agent:
    def __init__(self, kind):
        self.kind = kind

    def turn(self, user_input):
        if self.kind == "raises":
            raise ValueError("model client exploded")
        if self.kind == "hangs":
            time.sleep(30)
        if self.kind == "number":
            return 42
        return "hello"

def factory(context):
    kind = context.provider.complete([], []).text
    return Agent(kind)
"""


def test_raising_hanging_and_ill_typed_agents_error_only_their_cases(
    tmp_path: Path,
    write_fixture: WriteFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each misbehaviour errors its own case with a clear message; the good case passes."""
    module = agent_module(tmp_path, MISBEHAVING, monkeypatch)
    for kind in ("good", "raises", "hangs", "number"):
        steps = [{"response": {"type": "text", "content": kind}}]
        write_fixture(
            f"{kind}.json",
            echo_trace(
                model_name=kind,
                turns=[{"user_input": "hi", "steps": steps}],
                expects={"exact_tool_calls": 0},
            ),
        )
    suite = str(tmp_path / "suite")
    argv = ["run", "--suite", suite, "--agent", f"{module}:factory", "--case-timeout", "0.5"]
    assert main([*argv, "--format", "json"]) == 1
    cases = {c["name"]: c for c in json.loads(capsys.readouterr().out)["cases"]}
    assert cases["good"]["passed"] is True
    assert cases["raises"]["error"] == "ValueError: model client exploded"
    assert 'raise ValueError("model client exploded")' in cases["raises"]["traceback"]
    assert cases["hangs"]["error"].startswith("case timed out after 0.5s (case_timeout)")
    assert cases["number"]["error"] == "agent.turn() returned int, expected str"
    assert main(argv) == 1
    table = capsys.readouterr().out
    assert "error: ValueError: model client exploded" in table
    assert "Traceback" not in table


ASYNC_HANG = """
import asyncio

class Agent:
    async def turn(self, user_input):
        await asyncio.sleep(30)
        return "late"

def factory(context):
    return Agent()
"""


def test_hung_async_agent_times_out(
    tmp_path: Path,
    write_fixture: WriteFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An async agent that never returns is cut off by the case timeout too."""
    module = agent_module(tmp_path, ASYNC_HANG, monkeypatch)
    path = write_fixture("a.json", echo_trace())
    argv = [
        "run",
        "--suite",
        str(path.parent),
        "--agent",
        f"{module}:factory",
        "--case-timeout",
        "0.3",
    ]
    assert main(argv) == 1
    assert "case timed out after 0.3s" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("no_colon_here", 'expected "package.module:attribute"'),
        (
            "surely_not_a_module_xyz:factory",
            "cannot import 'surely_not_a_module_xyz': ModuleNotFoundError",
        ),
        ("tests.agents:missing", "'tests.agents' has no attribute 'missing'"),
        ("tests.agents:__doc__", "'tests.agents:__doc__' is not callable"),
        ("tests.agents:upper_tools", "must accept one argument, the case's CaseContext"),
        ("tests.agents:not_an_agent", "returned int, which is not an agent"),
    ],
)
def test_bad_agent_factory_is_a_config_error(
    path: str, reason: str, write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A factory that cannot be imported or returns no agent: exit 2, one line."""
    suite = write_fixture("a.json", echo_trace()).parent
    assert main(["run", "--suite", str(suite), "--agent", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("harness: --agent")
    assert reason in err


BAD_TOOLS = """
class Nameless:
    pass

def not_tools():
    return [Nameless()]

def clash():
    from harness.replay.tools import EchoTool
    return [EchoTool()]
"""


@pytest.mark.parametrize(
    ("factory", "reason"),
    [
        ("not_tools", "returned Nameless, which is not a tool"),
        ("clash", "two tools are named 'echo'"),
    ],
)
def test_bad_tools_factory_is_a_config_error(
    factory: str,
    reason: str,
    tmp_path: Path,
    write_fixture: WriteFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tools that are not tools, or clash by name, are refused before anything runs."""
    module = agent_module(tmp_path, BAD_TOOLS, monkeypatch)
    suite = write_fixture("a.json", echo_trace()).parent
    assert main(["run", "--suite", str(suite), "--tools", f"{module}:{factory}"]) == 2
    assert reason in capsys.readouterr().err


def test_tools_can_replace_the_defaults(
    tmp_path: Path, write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """default_tools = false registers only the project's tools: echo is then unknown."""
    expects = {"exact_tool_calls": 1, "all_tools_succeeded": True}
    suite = write_fixture("a.json", echo_trace(expects=expects)).parent
    config = tmp_path / "pyproject.toml"
    config.write_text(
        f'[tool.harness]\nsuite_dir = "{suite.name}"\ntools = "tests.agents:upper_tools"\n'
        "default_tools = false\n"
    )
    assert main(["run", "--config", str(config), "--format", "json"]) == 1
    (case,) = json.loads(capsys.readouterr().out)["cases"]
    assert case["tool_calls"][0]["result"] == "Unknown tool: echo"


def test_typo_in_an_expected_tool_name_is_refused_at_load(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tools_not_used name close to a known tool is a typo: exit 2, with a suggestion."""
    path = write_fixture(
        "a.json", echo_trace(expects={"tools_not_used": ["ecno"], "exact_tool_calls": 1})
    )
    assert main(["run", "--suite", str(path.parent)]) == 2
    assert capsys.readouterr().err == (
        f'harness: {path}: $.expects.tools_not_used[0]: names tool "ecno", which is neither '
        'registered nor scripted in this fixture (known: "echo", "read_file", "write_file"); '
        'did you mean "echo"?; '
        "declare the agent's tools with tool_names = [...] in [tool.harness] or --tool-names "
        "a,b, or register a Tool through `tools`\n"
    )


def test_registered_project_tools_count_as_known(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool from the tools factory may be named in expectations without being scripted."""
    path = write_fixture(
        "a.json", echo_trace(expects={"tools_not_used": ["upper"], "exact_tool_calls": 1})
    )
    assert main(["run", "--suite", str(path.parent), "--tools", "tests.agents:upper_tools"]) == 0


@pytest.mark.parametrize(
    ("path", "hint"),
    [
        (
            "tests.agents:sync_agnet",
            "'tests.agents' has no attribute 'sync_agnet'; did you mean \"sync_agent\"?",
        ),
        ("tests.agnets:sync_agent", 'did you mean "agents"?'),
        ("tsts.agents:sync_agent", 'did you mean "tests"?'),
    ],
)
def test_a_misspelled_factory_path_gets_a_did_you_mean(path: str, hint: str) -> None:
    """As the fixture loader does for keys, a typo in a factory path names the close match."""
    from harness.replay.plugin import load_agent_factory

    with pytest.raises(ConfigError) as raised:
        load_agent_factory(path, source="--agent", key=None, root=None)
    assert str(raised.value).endswith(hint)

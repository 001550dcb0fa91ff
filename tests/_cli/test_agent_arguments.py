"""The agent flags `harness run` and `harness check` share: `--agent-reuse` and what it needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._cli.main import main
from tests.builders import echo_trace
from tests.conftest import WriteFixture


@pytest.mark.parametrize(
    ("config", "flags", "culprit"),
    [
        ("", ["--agent-reuse"], "--agent-reuse: "),
        ("agent_reuse = true\n", [], "[tool.harness].agent_reuse: "),
    ],
    ids=["flag", "config"],
)
def test_reuse_without_an_agent_command_exits_2_with_one_line(
    write_fixture: WriteFixture,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    config: str,
    flags: list[str],
    culprit: str,
) -> None:
    """agent_reuse is for agent_command agents: asked for without one, one line names why."""
    write_fixture("a.json", echo_trace())
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f'[tool.harness]\nsuite_dir = "suite"\n{config}')
    assert main(["run", "--config", str(pyproject), *flags]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert culprit in err
    assert "needs agent_command" in err

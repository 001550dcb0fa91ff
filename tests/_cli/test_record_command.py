"""`harness record --out`: the fixture written replaces a fixture, never anything else."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._cli.main import main

UNREACHED = "http://127.0.0.1:9/v1"
"""An upstream the refused commands never get to ask."""


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("pyproject.toml", '[tool.harness]\nsuite_dir = "evals"\n', "it is the config"),
        ("agent.py", "def factory(context):\n    return None\n", "it exists and is not a fixture"),
        ("report.json", '{"schema_version": 1, "harness_version": "0"}', "it exists and is not a fixture"),  # noqa: E501
    ],
    ids=["config", "source", "report"],
)  # fmt: skip
def test_record_refuses_an_out_that_is_not_a_fixture(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str,
    reason: str,
) -> None:
    """Before anything is recorded: exit 2, one line, the file left as it was."""
    monkeypatch.chdir(tmp_path)
    if name != "pyproject.toml":
        (tmp_path / "pyproject.toml").write_text("[tool.harness]\n")
    target = tmp_path / name
    target.write_text(content)
    argv = ["record", "--upstream", UNREACHED, "--out", name, "--input", "hello"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harness: --out {name}: {reason}")
    assert err.count("\n") == 1
    assert target.read_text() == content

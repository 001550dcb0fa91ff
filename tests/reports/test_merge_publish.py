"""`harness merge` reports like a run: in GitHub Actions, one job summary and annotations."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._cli.main import main
from tests.builders import echo_trace
from tests.conftest import WriteFixture


def test_a_sharded_run_merged_in_actions_writes_one_summary(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The shards, run with reporting off, write nothing; the merge writes it all once."""
    for index in range(4):
        expects = {"response_contains": ["hello" if index % 2 else "never"]}
        write_fixture(f"c{index}.json", echo_trace(model_name=f"case-{index}", expects=expects))
    suite = tmp_path / "suite"
    monkeypatch.chdir(tmp_path)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("HARNESS_GITHUB_REPORT", "0")
    parts = []
    for shard in ("1/2", "2/2"):
        part = tmp_path / f"part-{shard.replace('/', '-')}.json"
        main(["run", "--suite", str(suite), "--shard", shard, "--json", str(part)])
        parts.append(str(part))
    assert not summary.exists()
    capsys.readouterr()
    monkeypatch.delenv("HARNESS_GITHUB_REPORT")
    junit = tmp_path / "merged.junit.xml"
    assert main(["merge", *parts, "--junit", str(junit)]) == 1
    text = summary.read_text()
    assert text.count("### harness: suite (replay)") == 1
    assert "2/4 cases passed, ❌ 2 failed" in text
    out = capsys.readouterr().out
    assert out.count("::error file=suite/") == 2
    assert "title=case-0::" in out
    assert "title=case-2::" in out
    assert junit.exists()

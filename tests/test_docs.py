"""The examples in README.md and docs/ run as written.

A fenced block right after `<!-- runnable: GROUP [file=PATH] [exit=N] -->` belongs to GROUP
of its page. With `file=`, the block is written to PATH; without it, the block is shell
commands, run by bash (`-e`) and expected to exit N (default 0). The blocks of a group run in
order, in a fresh git repository, with this checkout's `harness` and `nox` on PATH and
`HARNESS` naming this checkout (the README's install step). A group with a Node.js file is
marked `node`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
MARKER = re.compile(r"<!-- runnable: (?P<group>[\w-]+)(?P<options>(?: [\w]+=\S+)*) -->\n")
FENCE = re.compile(r"(?P<fence>`{3,})(?P<lang>\w*)\n(?P<body>.*?\n)(?P=fence)\n", re.S)
IDENTITY = {
    f"GIT_{who}_{what}": value
    for who in ("AUTHOR", "COMMITTER")
    for what, value in (("NAME", "harness_user"), ("EMAIL", "harness_user@example.com"))
}


@dataclass(frozen=True)
class Block:
    """One runnable block: a file to write, or commands to run."""

    line: int
    body: str
    file: str | None = None
    exit: int = 0


@dataclass(frozen=True)
class Example:
    """The blocks of one group of one page, in page order."""

    page: str
    group: str
    blocks: tuple[Block, ...]

    @property
    def node(self) -> bool:
        return any(b.file and b.file.endswith((".js", ".mjs")) for b in self.blocks)


def blocks_of(text: str) -> dict[str, list[Block]]:
    """The runnable blocks of one page, by group; a marker not followed by a fence is an error."""
    groups: dict[str, list[Block]] = {}
    for marker in MARKER.finditer(text):
        fence = FENCE.match(text, marker.end())
        line = text.count("\n", 0, marker.start()) + 1
        assert fence is not None, f"line {line}: a runnable marker must precede a fenced block"
        options = dict(option.split("=", 1) for option in marker["options"].split())
        assert set(options) <= {"file", "exit"}, f"line {line}: unknown option in {options}"
        block = Block(
            line=line,
            body=fence["body"],
            file=options.get("file"),
            exit=int(options.get("exit", "0")),
        )
        groups.setdefault(marker["group"], []).append(block)
    return groups


def examples() -> list[Example]:
    found = []
    for page in PAGES:
        name = page.relative_to(REPO).as_posix()
        for group, blocks in blocks_of(page.read_text(encoding="utf-8")).items():
            found.append(Example(page=name, group=group, blocks=tuple(blocks)))
    return found


def environment(home: Path) -> dict[str, str]:
    """This test's interpreter's scripts first on PATH; no harness variable set."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("HARNESS")}
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env["HARNESS"] = str(REPO)
    env.update(IDENTITY)
    env["NO_COLOR"] = "1"
    return env


def run(example: Example, folder: Path) -> list[str]:
    """Write and run `example` in `folder`, a fresh git repository; what went wrong, if anything."""
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    env = environment(folder)
    problems = []
    for block in example.blocks:
        if block.file is not None:
            target = folder / block.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
            continue
        done = subprocess.run(
            ["bash", "-e", "-c", block.body],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != block.exit:
            problems.append(
                f"{example.page}:{block.line}: exit {done.returncode}, expected {block.exit}\n"
                f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
            )
            break
    return problems


def params() -> list[object]:
    return [
        pytest.param(
            example,
            id=f"{example.page}::{example.group}",
            marks=[pytest.mark.node] if example.node else [],
        )
        for example in examples()
    ]


@pytest.mark.parametrize("example", params())
def test_the_example_runs_as_written(example: Example, tmp_path: Path) -> None:
    """Its files are written, its commands exit as the page says."""
    assert run(example, tmp_path / "project") == []


def test_every_group_runs_something_and_the_pages_have_examples() -> None:
    """A group of files alone would be written and never checked."""
    found = examples()
    assert {example.page for example in found} >= {"README.md", "docs/agents.md", "docs/wire.md"}
    for example in found:
        assert any(b.file is None for b in example.blocks), f"{example.page}::{example.group}"


def test_the_readme_quick_start_installs_inits_and_gates() -> None:
    """The quick start is a runnable group, from installing the harness to `nox -s regression`."""
    (quickstart,) = (e for e in examples() if (e.page, e.group) == ("README.md", "quickstart"))
    commands = "".join(block.body for block in quickstart.blocks)
    for step in ('pip install "$HARNESS"', "harness init", "nox -l", "nox -s regression"):
        assert step in commands


def test_a_broken_example_is_caught(tmp_path: Path) -> None:
    """The negative control: a fixture whose expectation the run misses exits 1, not 0."""
    page = (REPO / "README.md").read_text(encoding="utf-8")
    (fixture, command) = blocks_of(page)["fixture"]
    broken = Block(
        line=fixture.line, body=fixture.body.replace('"hello"]', '"goodbye"]'), file=fixture.file
    )
    assert broken.body != fixture.body
    problems = run(Example("README.md", "fixture", (broken, command)), tmp_path / "project")
    assert len(problems) == 1
    assert "exit 1, expected 0" in problems[0]

"""The help is complete: every flag with its default, the exit statuses, and the synopsis of
docs/cli.md listing exactly the flags the help lists."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from harness._cli.main import build_parser, main

REPO = Path(__file__).resolve().parents[2]
FLAG = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def commands() -> dict[str, argparse.ArgumentParser]:
    """Each command (`run`, `history import`) and its parser."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    if not any(isinstance(a, argparse._SubParsersAction) for a in child._actions):
                        found[f"{prefix}{name}"] = child
                    walk(child, f"{prefix}{name} ")

    walk(build_parser(), "")
    return found


def help_flags(parser: argparse.ArgumentParser) -> set[str]:
    return {
        flag
        for action in parser._actions
        for flag in action.option_strings
        if flag not in {"-h", "--help"}
    }


def readme_flags() -> dict[str, set[str]]:
    """Per command, the flags its usage in the synopsis of docs/cli.md names."""
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    block = text.split("```", 2)[1]
    usage: dict[str, set[str]] = {}
    current = None
    for line in block.splitlines():
        if line.startswith("harness "):
            words = line.split()
            current = " ".join(words[1:3] if words[1] == "history" else words[1:2])
            usage[current] = set()
            line = line.split(current, 1)[1]
        elif not line.startswith(" "):
            current = None  # `python -m harness ...`
        if current is not None:
            usage[current] |= set(FLAG.findall(line))
    return usage


def test_the_cli_page_and_the_help_name_the_same_flags() -> None:
    """Both directions: a flag on the page is in the help, and every help flag is on it."""
    documented = readme_flags()
    parsers = commands()
    assert set(documented) == set(parsers)
    for name, parser in parsers.items():
        assert documented[name] == help_flags(parser), name


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_flag_says_its_default(name: str) -> None:
    """Each option's help line states its default (`default: ...`), or that it is required."""
    parser = commands()[name]
    for action in parser._actions:
        if (
            action.option_strings
            and action.help != argparse.SUPPRESS
            and "-h" not in action.option_strings
        ):
            said = "(required)" if action.required else "default"
            assert said in (action.help or ""), (name, action.option_strings)


@pytest.mark.parametrize("argv", [["--help"], *([*name.split(), "--help"] for name in commands())])
def test_every_help_states_the_exit_statuses_and_the_reference(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 0
    out = capsys.readouterr().out
    for status in ("0", "1", "2", "130", "143"):
        assert re.search(rf"^  {status} ", out, re.MULTILINE), (argv, status)
    assert "docs/cli.md, the command line" in out


def test_run_help_lists_the_new_flags_with_their_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for needle in (
        "--jobs N|auto",
        "(default: 1)",
        "--color {auto,always,never}",
        "(default: auto)",
        "-k EXPR",
        "-x, --exitfirst",
        "--lf, --last-failed",
        "-v, --verbose",
        "--format {table,json}",
    ):
        assert needle in out, needle

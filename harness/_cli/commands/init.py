"""`harness init`: turn a repository into a gated project (suites, config, nox sessions, CI)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from harness._cli.arguments import typed

if TYPE_CHECKING:
    from harness.authoring.scaffold import Outcome, Scaffold

__all__ = ["NEXT_COMMANDS", "register"]

NEXT_COMMANDS = (
    ("pipx install nox", "once: nox in an environment of its own (or run `uvx nox ...`)"),
    ("nox -s regression", "replay evals/regression through the agent: the gate CI runs"),
    ("nox -s harness-check", "prove every fixture can fail, and lint it for private data"),
)


def register(commands: Any) -> None:
    """Add `init` to the subcommands."""
    init = commands.add_parser(
        "init",
        help="make this repository a gated project: suites, [tool.harness], nox sessions, CI",
    )
    init.add_argument(
        "folder", nargs="?", default=".", help="the project folder (default: the current one)"
    )
    agent = init.add_mutually_exclusive_group()
    agent.add_argument(
        "--agent",
        metavar="MODULE:FACTORY",
        help="the project's agent factory (default: none, the reference loop)",
    )
    agent.add_argument(
        "--agent-command",
        metavar="COMMAND",
        help="an agent in any language, over the replay endpoint (default: none)",
    )
    init.add_argument(
        "--ci",
        choices=("github", "gitlab"),
        default="github",
        help="the CI pipeline to write (default: github)",
    )
    init.add_argument(
        "--harness",
        metavar="REQUIREMENT",
        help="the harness the sessions install (default: where this one was installed from)",
    )
    init.add_argument(
        "--force", action="store_true", help="overwrite files init wrote before (default: off)"
    )
    typed(init)
    init.set_defaults(handler=init_command)


def init_command(args: argparse.Namespace) -> int:
    """Write the files and say what was done, what to add by hand and what to run next."""
    # Deferred: `harness --help` imports every command module; this command's machinery
    # would slow it.
    from harness.authoring.scaffold import init_project

    scaffold = init_project(
        args.folder,
        agent=args.agent,
        agent_command=args.agent_command,
        ci=args.ci,
        force=args.force,
        harness=args.harness,
    )
    sys.stdout.write(summary(scaffold))
    for warning in scaffold.warnings:
        sys.stderr.write(f"harness init: warning: {warning}\n")
    return 0


def summary(scaffold: Scaffold) -> str:
    """What `init` prints: one line per file, the lines to add by hand, the next commands."""
    lines = [_line(outcome) for outcome in scaffold.outcomes]
    lines += ["", f"the sessions install the harness from: {scaffold.requirement}"]
    for outcome in scaffold.outcomes:
        if outcome.advice:
            lines += ["", f"{outcome.path} is yours, so it was not touched; add these lines to it:"]
            lines += ["", *outcome.advice, ""]
    if not scaffold.changed:
        lines += ["", "nothing created: every file is already there (--force rewrites them)"]
    lines += ["", "next:"]
    width = max(len(command) for command, _ in NEXT_COMMANDS)
    lines += [f"    {command:<{width}}  # {why}" for command, why in NEXT_COMMANDS]
    return "\n".join(lines) + "\n"


def _line(outcome: Outcome) -> str:
    if outcome.action == "present":
        return f"{'kept':<10} pyproject.toml: [tool.harness] is already there, left as it is"
    if outcome.action == "added":
        return f"{'added':<10} [tool.harness] to pyproject.toml"
    if outcome.action == "kept":
        return f"{'kept':<10} {outcome.path}: exists (--force overwrites it)"
    return f"{outcome.action:<10} {outcome.path}"

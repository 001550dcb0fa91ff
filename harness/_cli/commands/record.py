"""`harness record`: run the agent against a real model and write the run as a fixture."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Any

from harness._cli.agent_arguments import add_agent, add_agent_command, add_tools
from harness._cli.arguments import seconds, typed
from harness.config import find_pyproject, load_config
from harness.errors import UsageError
from harness.pipeline.setup import Overrides, setup_from
from harness.reports.artifact import FIXTURE, check_output

__all__ = ["register"]


def register(commands: Any) -> None:
    """Add `record` to the subcommands."""
    record = commands.add_parser(
        "record", help="record a real run of the agent as a fixture with checks that can fail"
    )
    record.add_argument(
        "--upstream",
        metavar="URL",
        required=True,
        help="the model server, OpenAI- or Anthropic-compatible: https://host/v1 (required)",
    )
    record.add_argument(
        "--out", metavar="PATH", required=True, help="the fixture file to write (required)"
    )
    record.add_argument(
        "--input",
        metavar="TEXT",
        action="append",
        required=True,
        help="a user turn; repeat for a multi-turn conversation (required)",
    )
    agent = record.add_mutually_exclusive_group()
    add_agent(agent)
    add_agent_command(agent)
    add_tools(record)
    record.add_argument(
        "--allow-private",
        action="store_true",
        help="write even if the privacy lint finds data (default: off)",
    )
    record.add_argument(
        "--allow-weak",
        action="store_true",
        help="write even if a mutant of the run passes the fixture (default: off)",
    )
    record.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=seconds,
        default=120.0,
        help="how long one upstream request may take (default: 120)",
    )
    record.add_argument(
        "--config", metavar="PATH", help="pyproject.toml to read (default: the nearest)"
    )
    typed(record)
    record.set_defaults(handler=record_command)


def record_command(args: argparse.Namespace) -> int:
    """Record, check and write the fixture; say what was written and how strong it is."""
    # Deferred: `harness --help` imports every command module; this command's machinery
    # would slow it.
    from harness.authoring.transcriber import record

    config_path = args.config if args.config is not None else find_pyproject()
    config = load_config(config_path)
    _check_out(args.out, config_path)
    overrides = Overrides(agent=args.agent, tools=args.tools, agent_command=args.agent_command)
    setup, _ = setup_from(config, config_path, overrides)
    # Recording drives the agent here, against the proxy; it decides no gate's status.
    setup = setup.loaded()
    written = record(
        setup,
        upstream=args.upstream,
        out=args.out,
        inputs=args.input,
        allow_private=args.allow_private,
        allow_weak=args.allow_weak,
        timeout=args.timeout,
    )
    sys.stdout.write(
        f"wrote {written.path}: {written.name}, {written.steps} step(s), {written.calls} call(s); "
        f"strength {written.killed}/{written.mutants} mutants killed"
        + (f" (surviving: {', '.join(written.survivors)})" if written.survivors else "")
        + "\n"
        f"next: harness check --suite {_folder(written.path)}{_agent_flags(args)} && harness "
        f"run --suite {_folder(written.path)}{_agent_flags(args)}\n"
    )
    return 0


def _check_out(path: str, config_path: str | None) -> None:
    """Refuse, before anything is recorded, an `--out` that would replace the config or any
    existing file that is not a fixture (a re-recorded fixture is replaced; nothing else is).

    Raises:
        UsageError: It would.
    """
    if config_path and os.path.realpath(path) == os.path.realpath(config_path):
        raise UsageError(f"--out {path}: it is the config, which no output replaces")
    check_output("--out", path, kind=FIXTURE)


def _agent_flags(args: argparse.Namespace) -> str:
    """The agent flags this recording was given, for the commands that replay it."""
    given = (
        ("--agent", args.agent),
        ("--agent-command", args.agent_command),
        ("--tools", args.tools),
    )
    return "".join(f" {flag} {shlex.quote(value)}" for flag, value in given if value)


def _folder(path: str) -> str:
    return shlex.quote(os.path.dirname(path) or ".")

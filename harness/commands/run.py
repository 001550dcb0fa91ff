"""`harness run`: load -> replay -> grade -> report -> exit status."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from harness.artifact import write_atomic
from harness.commands.arguments import jobs, seconds
from harness.config import MODES, Config, find_pyproject, load_config
from harness.errors import ConfigError, UsageError
from harness.gcpause import gc_paused
from harness.interrupt import exit_status, stop_on_sigterm

if TYPE_CHECKING:
    from harness.report import SuiteReport
    from harness.runner import Setup

__all__ = ["LIVE_MODE_MESSAGE", "Outputs", "register", "setup_from", "show", "write_artifacts"]

LIVE_MODE_MESSAGE = "live mode is not implemented yet (Phase 0 supports --mode replay only)"


def register(commands: Any) -> None:
    """Add `run` to the subcommands."""
    run = commands.add_parser("run", help="replay a suite and report pass/fail")
    run.add_argument("--suite", metavar="DIR", help="suite folder (default: config suite_dir)")
    run.add_argument("--mode", choices=MODES, help="replay (default) or live (not in Phase 0)")
    run.add_argument(
        "--format", choices=("table", "json"), default="table", help="what stdout shows"
    )
    run.add_argument("--json", metavar="PATH", help="also write the JSON report to PATH")
    run.add_argument("--junit", metavar="PATH", help="also write a JUnit XML report to PATH")
    run.add_argument(
        "--history",
        metavar="PATH",
        nargs="?",
        const="",
        help="record the run in the history (default path: config history)",
    )
    run.add_argument("--agent", metavar="MODULE:FACTORY", help="the project's agent factory")
    run.add_argument("--tools", metavar="MODULE:FACTORY", help="the project's tools factory")
    run.add_argument(
        "--agent-command",
        metavar="COMMAND",
        help="an agent in any language, replayed over the OpenAI-compatible endpoint",
    )
    run.add_argument(
        "--case-timeout", metavar="SECONDS", type=seconds, help="per-case limit (default 60)"
    )
    run.add_argument(
        "--jobs", metavar="N", type=jobs, default=1, help="worker processes, or auto (cores)"
    )
    run.add_argument(
        "--shard", metavar="I/N", help="run shard I of N of the sorted suite (auto: CI_NODE_*)"
    )
    run.add_argument("--config", metavar="PATH", help="pyproject.toml to read (default: nearest)")
    run.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Replay the suite, report it, and return 0 (all passed) or 1."""
    # The run makes no garbage cycles worth collecting: the cyclic GC would only rescan the
    # growing heap of fixtures and reports (see PERF.md), and forked --jobs workers share
    # those pages untouched. Its previous state comes back when the command ends.
    with gc_paused():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from harness.runner import run_suite
    from harness.shard import parse_shard
    from harness.suite import load_suite

    if args.mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    config_path = args.config if args.config is not None else find_pyproject()
    config = load_config(config_path)
    mode = args.mode or config.mode
    if mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    shard = parse_shard(args.shard) if args.shard else None
    setup, tool_names = setup_from(args, config, config_path)
    suite = load_suite(args.suite or config.suite_dir, tool_names, config.limits, args.jobs)
    if shard is not None:
        suite = suite.sharded(shard)
    with stop_on_sigterm():
        report = run_suite(suite, mode=mode, setup=setup, jobs=args.jobs)
    del suite  # the report holds what is shown; the decoded fixtures can go before rendering
    outputs = Outputs(report)
    show(outputs, args.format)
    write_artifacts(outputs, json_path=args.json, junit_path=args.junit)
    if args.history is not None and report.interrupted is None:
        _record(outputs, args.history or config.history)  # a partial run would skew the trend
    _publish_to_github(report, args.format)
    if report.interrupted is not None:
        return exit_status(report.interrupted)
    return report.exit_code()


def setup_from(
    args: argparse.Namespace, config: Config, config_path: str | None
) -> tuple[Setup, tuple[str, ...]]:
    """The agent, tools and timeout to run with, and the names of the registered tools."""
    from harness.plugin import check_tools, load_agent_factory, load_tools_factory
    from harness.runner import Setup

    root = os.path.dirname(os.path.abspath(config_path)) if config_path else None
    setup = Setup(case_timeout=getattr(args, "case_timeout", None) or config.case_timeout)
    agent_path, source, key = _origin(args.agent, config.agent, "agent", config_path)
    if agent_path:
        factory, wire = load_agent_factory(agent_path, source=source, key=key, root=root)
        setup = replace(
            setup, agent_factory=factory, agent_name=f"{source}: {agent_path}", wire=wire
        )
    command, command_source, command_key = _origin(
        getattr(args, "agent_command", None), config.agent_command, "agent_command", config_path
    )
    if command:
        if agent_path:
            reason = "set either agent or agent_command, not both"
            raise ConfigError(command_source, command_key, reason)
        setup = replace(
            setup, agent_command=_command(command, command_source, command_key), root=root
        )
    tools_path, source, key = _origin(args.tools, config.tools, "tools", config_path)
    if tools_path:
        tools = load_tools_factory(
            tools_path, source=source, key=key, root=root, with_defaults=config.default_tools
        )
        setup = replace(setup, tools=tools)
    elif not config.default_tools:
        raise ConfigError(
            config_path or "pyproject.toml",
            "[tool.harness].default_tools",
            "false leaves no tool at all: set `tools` to the project's tools factory",
        )
    return setup, check_tools(setup.tools, source=source, key=key)


def _command(text: str, source: str, key: str | None) -> tuple[str, ...]:
    import shlex

    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise ConfigError(source, key, f"cannot split the command: {exc}") from None
    if not argv:
        raise ConfigError(source, key, "the command is empty")
    return argv


def _origin(
    flag: str | None, configured: str | None, name: str, config_path: str | None
) -> tuple[str | None, str, str | None]:
    """A plugin path and where it came from: its flag, or its key in pyproject.toml."""
    if flag:
        return flag, f"--{name}", None
    return configured, config_path or "pyproject.toml", f"[tool.harness].{name}"


class Outputs:
    """The renderings of one report, each made at most once."""

    def __init__(self, report: SuiteReport, *, git_commit: str | bool | None = True) -> None:
        self.report = report
        self._commit = git_commit
        self._json: list[bytes] | None = None

    @property
    def git_commit(self) -> str | None:
        """The commit under test: given, or (True) found when first needed."""
        if self._commit is True:
            from harness.provenance import git_commit

            self._commit = git_commit()
        return self._commit or None

    def json_chunks(self) -> list[bytes]:
        """The JSON report in pieces (see `harness.report.json_chunks`): never held twice."""
        if self._json is None:
            from harness.report import json_chunks

            self._json = json_chunks(self.report, git_commit=self.git_commit)
        return self._json

    def json(self) -> bytes:
        return b"".join(self.json_chunks())

    def junit(self) -> bytes:
        from harness.junit import to_junit_xml

        return to_junit_xml(self.report, git_commit=self.git_commit)


def show(outputs: Outputs, output_format: str) -> None:
    if output_format == "json":
        binary = getattr(sys.stdout, "buffer", None)
        if binary is None:  # a text-only stream (main() embedded with redirected stdout)
            sys.stdout.write(outputs.json().decode())
        else:
            sys.stdout.flush()
            binary.writelines(outputs.json_chunks())  # bytes as they are: no decoded copy
    else:
        from harness.table import render_table

        print(render_table(outputs.report))
    sys.stdout.flush()


def write_artifacts(outputs: Outputs, *, json_path: str | None, junit_path: str | None) -> None:
    if json_path:
        write_atomic(json_path, outputs.json_chunks())
    if junit_path:
        write_atomic(junit_path, outputs.junit())


def _record(outputs: Outputs, path: str) -> None:
    from harness.history import History

    with History(path) as history:
        history.record_artifact(outputs.json())


def _publish_to_github(report: SuiteReport, output_format: str) -> None:
    """Append the job summary and emit annotations when running in GitHub Actions."""
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    if not in_actions and not os.environ.get("GITHUB_STEP_SUMMARY"):
        return
    from harness.github import annotation_commands, append_step_summary, step_summary

    append_step_summary(step_summary(report))
    if in_actions:
        # Keep stdout parseable when it carries the JSON report.
        stream = sys.stderr if output_format == "json" else sys.stdout
        for command in annotation_commands(report):
            print(command, file=stream)

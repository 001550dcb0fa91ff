"""`harness run`: load -> replay -> grade -> report -> exit status."""

from __future__ import annotations

import argparse
from typing import Any

from harness._cli.arguments import jobs, seconds
from harness._parallel import gc_paused
from harness.config import MODES, find_pyproject, load_config
from harness.errors import UsageError
from harness.pipeline.interrupt import exit_status, stop_on_sigterm
from harness.pipeline.setup import setup_from
from harness.reports.github import publish
from harness.reports.outputs import Outputs, show, write_artifacts

__all__ = ["LIVE_MODE_MESSAGE", "register"]

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
        "--tool-spans",
        action="store_true",
        default=None,
        help="record wire agents' tool calls from the OpenTelemetry spans they export",
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
    # growing heap of fixtures and reports, and forked --jobs workers share
    # those pages untouched. Its previous state comes back when the command ends.
    with gc_paused():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from harness.fixtures.shard import parse_shard
    from harness.fixtures.suite import load_suite
    from harness.pipeline.suite import run_suite

    if args.mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    config_path = args.config if args.config is not None else find_pyproject()
    config = load_config(config_path)
    mode = args.mode or config.mode
    if mode == "live":
        raise UsageError(LIVE_MODE_MESSAGE)
    shard = parse_shard(args.shard) if args.shard else None
    setup, tool_names = setup_from(
        config,
        config_path,
        agent=args.agent,
        tools=args.tools,
        agent_command=args.agent_command,
        case_timeout=args.case_timeout,
        tool_spans=args.tool_spans,
    )
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
    publish(report, args.format)
    if report.interrupted is not None:
        return exit_status(report.interrupted)
    return report.exit_code()


def _record(outputs: Outputs, path: str) -> None:
    from harness.history.store import History

    with History(path) as history:
        history.record_artifact(outputs.json())

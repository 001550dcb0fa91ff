"""The agent, tool and wire flags `harness run` and `harness check` share, defined once."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from harness._cli.arguments import names, seconds

if TYPE_CHECKING:
    from harness.pipeline.setup import Overrides

__all__ = [
    "add_agent",
    "add_agent_arguments",
    "add_agent_command",
    "add_tools",
    "agent_settings",
]


def add_agent_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the flags that say which agent runs, with which tools, and how its calls are seen."""
    add_agent(parser)
    add_tools(parser)
    add_agent_command(parser)
    parser.add_argument(
        "--agent-reuse",
        action="store_true",
        default=None,
        help="start the agent command once per worker and play case after case through it "
        "(default: config agent_reuse)",
    )
    parser.add_argument(
        "--tool-names",
        metavar="A,B",
        type=names,
        help="the agent's own tools, which fixtures may name (default: config tool_names)",
    )
    parser.add_argument(
        "--tool-spans",
        action="store_true",
        default=None,
        help="record wire agents' tool calls from the OpenTelemetry spans they export "
        "(default: config tool_spans)",
    )
    parser.add_argument(
        "--case-timeout",
        metavar="SECONDS",
        type=seconds,
        help="per-case limit (default: config case_timeout, 60)",
    )


def add_agent(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add `--agent`, the project's agent factory."""
    parser.add_argument(
        "--agent", metavar="MODULE:FACTORY", help="the agent factory (default: config agent)"
    )


def add_tools(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add `--tools`, the project's tools factory."""
    parser.add_argument(
        "--tools", metavar="MODULE:FACTORY", help="the tools factory (default: config tools)"
    )


def add_agent_command(parser: argparse.ArgumentParser | argparse._ActionsContainer) -> None:
    """Add `--agent-command`, an agent in any language."""
    parser.add_argument(
        "--agent-command",
        metavar="COMMAND",
        help="an agent in any language, over the endpoint (default: config agent_command)",
    )


def agent_settings(args: argparse.Namespace, *, capture: bool = True) -> Overrides:
    """The flags `add_agent_arguments` added, as `setup_from`'s overrides."""
    from harness.pipeline.setup import Overrides

    return Overrides(
        agent=args.agent,
        tools=args.tools,
        agent_command=args.agent_command,
        agent_reuse=args.agent_reuse,
        tool_names=args.tool_names,
        tool_spans=args.tool_spans,
        case_timeout=args.case_timeout,
        capture=capture,
    )

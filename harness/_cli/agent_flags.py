"""The `harness run` flags that say how an `agent_command` agent is run."""

from __future__ import annotations

import argparse

from harness._cli.arguments import names

__all__ = ["add_agent_flags"]


def add_agent_flags(parser: argparse.ArgumentParser) -> None:
    """Add `--agent-command`, `--agent-reuse`, `--tool-names` and `--tool-spans`."""
    parser.add_argument(
        "--agent-command",
        metavar="COMMAND",
        help="an agent in any language, over the endpoint (default: config agent_command)",
    )
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

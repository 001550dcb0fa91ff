"""Messages for people: one line per problem on stderr, prefixed with the program name."""

from __future__ import annotations

import sys

__all__ = ["complain"]


def complain(message: str) -> None:
    """Print each line of `message` to stderr as `harness: <line>`."""
    for line in message.splitlines() or [message]:
        print(f"harness: {line}", file=sys.stderr)

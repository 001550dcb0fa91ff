"""The exit guard: a run exits 0 only once its reports are written and `decide` says so.

While a run is in progress (`armed`), the code it runs (the project's agent, tools, graders)
could end the process early: `sys.exit(0)` escaping a case, or `os._exit(0)`. Either would
make the gate pass without having run. While armed:

- `main` turns a `SystemExit` that escapes the run into exit status 1 with one line;
- `os._exit` called in this process (not in a forked worker, whose exit is its own business)
  with status 0 exits 1 instead, after one line on stderr;
- should the interpreter end by any other way before the run disarms the guard, an `atexit`
  hook exits 1.

The run disarms the guard once it has written every report it was asked for and its exit
status is decided (`harness.pipeline.workflow.decide`, from the cases it counted); only then can its
status be 0. The guard decides nothing itself: it only keeps an early exit from passing.
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import Any, NoReturn

__all__ = ["EARLY_EXIT", "arm", "armed", "disarm"]

EARLY_EXIT = "the run was ended before its report was written ({how}); exit status 1"

_real_exit = os._exit
_armed_in: int | None = None
"""The process id the guard is armed in, or None."""
_hooked = False


def armed() -> bool:
    """Whether a run is in progress in this process."""
    return _armed_in == os.getpid()


def arm() -> None:
    """A run starts: from here until `disarm`, this process cannot exit 0."""
    global _armed_in, _hooked
    _armed_in = os.getpid()
    os._exit = _guarded_exit
    if not _hooked:
        atexit.register(_at_exit)
        _hooked = True


def disarm() -> None:
    """The run's reports are written and its status known: exits are the run's own again."""
    global _armed_in
    _armed_in = None
    os._exit = _real_exit


def _guarded_exit(status: int, *args: Any) -> NoReturn:
    if status == 0 and armed():
        _say("os._exit(0)")
        status = 1
    _real_exit(status, *args)


def _at_exit() -> None:
    if armed():
        _say("the interpreter stopped")
        _real_exit(1)


def _say(how: str) -> None:
    try:
        sys.stderr.write(f"harness: {EARLY_EXIT.format(how=how)}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # no stderr to say it on
        pass

"""The built-in loop with a crash planted: its worker process dies on the named cases.

The built-in agent and tools cannot crash a worker by themselves (the project's own code runs
in supervised workers instead), yet a bulk worker can still die: the OOM killer, a native
crash. `main` runs `harness` with `run_case` swapped for `crashing_run_case`, so a case named
in `HARNESS_TEST_CRASH` kills its process the way the environment variable's value says
(`NAME=kill` is SIGKILL, `NAME=exit` is `os._exit(3)`), in the workers only. The module is
importable, so workers started by a server (not forked) find the swap too.
"""

from __future__ import annotations

import os
import signal
import sys

from harness.fixtures.format import Case
from harness.pipeline import dispatch as suite
from harness.pipeline.case import run_case
from harness.pipeline.setup import DEFAULT_SETUP, Setup
from harness.reports.model import CaseReport

PARENT = os.getpid()


def crashing_run_case(case: Case, setup: Setup = DEFAULT_SETUP) -> CaseReport:
    """`run_case`, except in a worker process on a case planted in `HARNESS_TEST_CRASH`."""
    planted = dict(part.split("=") for part in os.environ["HARNESS_TEST_CRASH"].split(","))
    how = planted.get(case.name)
    if how is not None and os.getpid() != PARENT:
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        os._exit(3)
    return run_case(case, setup)


def main() -> None:
    """`harness` with the planted crashes, on the arguments after the script."""
    from harness._cli.main import main as harness_main

    suite.run_case = crashing_run_case  # type: ignore[attr-defined]
    sys.exit(harness_main(sys.argv[1:]))


if __name__ == "__main__":
    main()

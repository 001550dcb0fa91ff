"""`python -m harness`."""

from __future__ import annotations

import sys

from harness._cli.main import main

if __name__ == "__main__":
    sys.exit(main())

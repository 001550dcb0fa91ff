"""Entry point of `python -m tests.bench`."""

from __future__ import annotations

from tests.bench.main import main

raise SystemExit(main())

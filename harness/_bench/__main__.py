"""Entry point of `python -m harness._bench`."""

from __future__ import annotations

from harness._bench.bench import main

raise SystemExit(main())

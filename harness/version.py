"""The harness version and distribution name, the single place each is written."""

from __future__ import annotations

__version__ = "0.1.0"
DISTRIBUTION = "replay-harness"
"""The name on the package index (`pip install replay-harness`); the import package is `harness`."""

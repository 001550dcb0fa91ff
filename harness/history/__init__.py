"""The run history (SQLite) and the pass-rate trend drawn from it."""

"""Tests of harness.history."""

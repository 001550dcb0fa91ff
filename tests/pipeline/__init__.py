"""Tests of harness.pipeline."""

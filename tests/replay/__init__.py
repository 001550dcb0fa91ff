"""Tests of harness.replay."""

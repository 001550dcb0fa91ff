"""Tests of harness.grading."""

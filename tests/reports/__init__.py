"""Tests of harness.reports."""

"""Tests of harness._cli."""

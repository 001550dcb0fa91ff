"""Tests of harness.authoring."""

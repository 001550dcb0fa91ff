"""Grading a run record against a case's expectations and the project's own graders."""

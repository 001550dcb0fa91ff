"""Running one case, and a whole suite, through replay, recording, grading and reports."""

"""`harness check`: load rules, mutation strength and the privacy lint, for fixture authors."""

"""The `harness` command line: argument parsing and printing; the work is in the library."""

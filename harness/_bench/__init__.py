"""`python -m harness._bench`: the performance measurements behind `nox -s bench`."""

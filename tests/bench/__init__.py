"""`python -m tests.bench` (from the project's root): the measurements behind `nox -s bench`.

Kept beside the tests, not in the installed package: the bench drives `harness run` as users
start it, and pydantic-evals as the peer it is compared with.
"""

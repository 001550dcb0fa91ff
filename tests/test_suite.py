"""Suite loading: sorted, non-recursive, all-or-nothing, every rejection at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import SuiteError
from harness.fixtures.suite import fixture_paths, load_suite
from tests.builders import echo_trace
from tests.conftest import WriteFixture


def test_suite_is_the_sorted_direct_json_children(write_fixture: WriteFixture) -> None:
    """Only direct `*.json` files count, sorted by name; other files and subfolders are not."""
    b = write_fixture("b.json", echo_trace(model_name="b"))
    a = write_fixture("a.json", echo_trace(model_name="a"))
    write_fixture("notes.txt", "not a fixture")
    write_fixture("upper.JSON", "not a fixture either: the suffix is case-sensitive")
    nested = a.parent / "nested"
    nested.mkdir()
    (nested / "c.json").write_text("{}")
    suite = load_suite(str(a.parent))
    assert [case.source for case in suite.cases] == [str(a), str(b)]
    assert suite.name == "suite"


def test_empty_suite_is_an_error(tmp_path: Path) -> None:
    """A folder with no fixture never passes as an empty green run."""
    with pytest.raises(SuiteError, match=r"no \*\.json trace fixtures found in "):
        load_suite(str(tmp_path))


def test_missing_suite_folder_is_an_error(tmp_path: Path) -> None:
    """A suite folder that does not exist is named."""
    with pytest.raises(SuiteError, match="cannot read suite folder: No such file or directory"):
        fixture_paths(str(tmp_path / "absent"))


def test_every_rejected_fixture_is_reported_at_once(write_fixture: WriteFixture) -> None:
    """All bad files are listed, in file order, and no case is returned."""
    write_fixture("a_good.json", echo_trace(model_name="good"))
    bad1 = write_fixture("b_bad.json", echo_trace(turns=[]))
    bad2 = write_fixture("c_bad.json", "{not json")
    with pytest.raises(SuiteError) as caught:
        load_suite(str(bad1.parent))
    assert [p.path for p in caught.value.problems] == [str(bad1), str(bad2)]
    lines = str(caught.value).splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{bad1}: $.turns: ")
    assert lines[1].startswith(f"{bad2}: line 1, column 2: invalid JSON")


def test_duplicate_case_names_are_rejected(write_fixture: WriteFixture) -> None:
    """Two fixtures with the same model_name would make reports ambiguous."""
    first = write_fixture("a.json", echo_trace(model_name="same"))
    second = write_fixture("b.json", echo_trace(model_name="same"))
    with pytest.raises(SuiteError) as caught:
        load_suite(str(first.parent))
    (problem,) = caught.value.problems
    assert problem.path == str(second)
    assert problem.location == "$.model_name"
    assert problem.reason == f'duplicate case name "same" (also {first})'


def test_loading_restores_the_garbage_collector(write_fixture: WriteFixture) -> None:
    """The GC pause during a load never outlives it, even when the load fails."""
    import gc

    bad = write_fixture("bad.json", "[]")
    assert gc.isenabled()
    with pytest.raises(SuiteError):
        load_suite(str(bad.parent))
    assert gc.isenabled()

"""The workspace, budget and response_json expectations, graded and admitted fail-closed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from harness.errors import FixtureError
from harness.fixtures.format import BudgetExpects, Expects, FileNeedle, WorkspaceExpects
from harness.fixtures.reading import load_case
from harness.grading.expectations import evaluate_expects
from harness.grading.result import GradeContext
from harness.pipeline.case import run_case
from harness.recording import RunRecord
from tests.builders import calls_step, echo_trace, text_step
from tests.conftest import WriteFixture


def _grades(expects: Expects, record: RunRecord | None = None, **context: Any) -> list[Any]:
    return list(evaluate_expects(expects, record or RunRecord(), GradeContext(**context)))


def test_workspace_checks_see_the_files_left_behind(tmp_path: Path) -> None:
    """file_exists, file_absent and file_contains, each passing and failing."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.txt").write_text("hello world")
    block = WorkspaceExpects(
        file_exists=("out/a.txt", "out/b.txt"),
        file_absent=("out/b.txt", "out/a.txt"),
        file_contains=(
            FileNeedle(path="out/a.txt", needle="world"),
            FileNeedle(path="out/a.txt", needle="moon"),
        ),
    )
    grades = _grades(Expects(workspace=block), workspace=str(tmp_path))
    assert [(g.check, g.passed, g.detail) for g in grades] == [
        ('file_exists("out/a.txt")', True, "exists"),
        ('file_exists("out/b.txt")', False, "does not exist"),
        ('file_absent("out/b.txt")', True, "absent"),
        ('file_absent("out/a.txt")', False, "exists"),
        ('file_contains("out/a.txt", "world")', True, "found"),
        ('file_contains("out/a.txt", "moon")', False, 'not found; the file holds "hello world"'),
    ]
    assert {g.category for g in grades} == {"side_effect"}


def test_a_symlink_out_of_the_workspace_fails_the_check(tmp_path: Path) -> None:
    """A path that resolves outside the workspace is never looked at."""
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    root = tmp_path / "ws"
    root.mkdir()
    os.symlink(outside, root / "link.txt")
    block = WorkspaceExpects(file_contains=(FileNeedle(path="link.txt", needle="secret"),))
    (grade,) = _grades(Expects(workspace=block), workspace=str(root))
    assert not grade.passed
    assert "leads out of the case workspace" in grade.detail


def test_no_workspace_fails_existence_but_not_absence() -> None:
    """A run that made no workspace left no file."""
    block = WorkspaceExpects(file_exists=("a",), file_absent=("b",))
    assert [g.passed for g in _grades(Expects(workspace=block))] == [False, True]


def test_a_run_grades_only_the_duration_bound_inclusively() -> None:
    """The token and call bounds were settled at load against the script: a run grades none
    of them (they could not fail), and the duration passes at its bound, fails one below."""
    record = RunRecord(input_tokens=10, output_tokens=5, llm_calls=2)
    spent = {"max_input_tokens": 1, "max_output_tokens": 1, "max_total_tokens": 1}
    (at,) = _grades(
        Expects(budget=BudgetExpects(**spent, max_duration_ms=500)), record, duration_s=0.5
    )
    (below,) = _grades(Expects(budget=BudgetExpects(max_duration_ms=499)), record, duration_s=0.5)
    assert (at.check, at.passed, at.category) == ("max_duration_ms(500)", True, "budget")
    assert (below.passed, below.detail) == (False, "took 500.0 ms")
    assert _grades(Expects(budget=BudgetExpects(**spent, max_llm_calls=1)), record) == []


@pytest.mark.parametrize(
    ("budget", "location", "reason"),
    [
        (
            {"max_input_tokens": 79},
            "max_input_tokens",
            "max_input_tokens (79) is below the 80 input tokens",
        ),
        ({"max_output_tokens": 24}, "max_output_tokens", "below the 25 output tokens"),
        ({"max_total_tokens": 104}, "max_total_tokens", "below the 105 tokens the steps script"),
        ({"max_llm_calls": 1}, "max_llm_calls", "below the 2 model calls"),
    ],
)
def test_a_bound_the_script_exceeds_is_refused_at_load(
    write_fixture: WriteFixture, budget: dict[str, int], location: str, reason: str
) -> None:
    """A replay spends exactly what the steps script (80 in, 25 out, 2 calls): no run passes."""
    expects = {"response_contains": ["hello"], "budget": budget}
    error = _reject(write_fixture, expects=expects)
    assert error.location == f"$.expects.budget.{location}"
    assert reason in error.reason
    assert error.reason.endswith("so none can pass")


def test_a_token_bound_on_a_script_that_reports_no_tokens_is_refused(
    write_fixture: WriteFixture,
) -> None:
    """Usage the recording never captured cannot be bounded: the bound would guard nothing."""
    turns = [{"user_input": "hi", "steps": [text_step("hello")]}]
    expects = {"response_contains": ["hello"], "budget": {"max_total_tokens": 10}}
    error = _reject(write_fixture, turns=turns, expects=expects)
    assert error.location == "$.expects.budget.max_total_tokens"
    assert error.reason == "no scripted step reports tokens: the bound guards nothing"


def test_token_and_call_bounds_alone_are_no_expectation(write_fixture: WriteFixture) -> None:
    """Met by the script, they hold on every replay: a case needs a check a run can fail."""
    error = _reject(
        write_fixture, expects={"budget": {"max_total_tokens": 105, "max_llm_calls": 2}}
    )
    assert error.location == "$.expects"
    assert error.reason.startswith("declares no check a run grades")


def test_bounds_the_script_meets_load_beside_a_graded_check(write_fixture: WriteFixture) -> None:
    """At the script's spend, inclusive, the bounds are admitted; the duration alone counts."""
    budget = {"max_total_tokens": 105, "max_llm_calls": 2}
    case = load_case(
        str(
            write_fixture(
                "a.json", echo_trace(expects={"response_contains": ["hello"], "budget": budget})
            )
        )
    )
    assert case.expects.budget == BudgetExpects(max_total_tokens=105, max_llm_calls=2)
    timed = load_case(
        str(write_fixture("b.json", echo_trace(expects={"budget": {"max_duration_ms": 60_000}})))
    )
    assert timed.expects.budget == BudgetExpects(max_duration_ms=60_000)


@pytest.mark.parametrize(
    ("response", "passed"),
    [
        ('{"a": {"b/c": [1, {"d~e": true}]}}', [True, True, True]),
        ('Result:\n```json\n{"a": {"b/c": [1.0, {"d~e": true}]}}\n```\nDone.', [True, True, True]),
        ('{"a": {"b/c": [true, {"d~e": 1}]}}', [False, False, True]),
    ],
)
def test_response_json_pointers(response: str, passed: list[bool]) -> None:
    """RFC 6901 pointers, with ~1 and ~0, into the response or its ```json block; true is not 1."""
    pointers = {"/a/b~1c/0": 1, "/a/b~1c/1/d~0e": True, "/a": {"b/c": [1, {"d~e": True}]}}
    grades = _grades(Expects(response_json=pointers), RunRecord(final_response=response))
    assert [g.passed for g in grades[:2]] == passed[:2]


def test_not_json_shows_where_parsing_stopped() -> None:
    """The detail names line, column and the text around the spot."""
    (grade,) = _grades(Expects(response_json={"/a": 1}), RunRecord(final_response='{"a": 1,, }'))
    assert not grade.passed
    assert grade.detail.startswith(
        "not JSON: Expecting property name enclosed in double quotes at line 1, column 9"
    )
    assert '"{\\"a\\": 1," ⟨here⟩ ", }"' in grade.detail


def test_missing_pointer_and_wrong_value_details() -> None:
    """A pointer to nothing says so; a wrong value shows what was there."""
    grades = _grades(
        Expects(response_json={"/x": 1, "/a": 2}), RunRecord(final_response='{"a": 1}')
    )
    assert [g.detail for g in grades] == ['no value at "/x" in {"a":1}', "was 1"]


def _reject(write_fixture: WriteFixture, **changes: Any) -> FixtureError:
    path = write_fixture("case.json", echo_trace(**changes))
    with pytest.raises(FixtureError) as caught:
        load_case(str(path))
    return caught.value


@pytest.mark.parametrize(
    ("changes", "location", "reason"),
    [
        ({"expects": {"workspace": {}}}, "$.expects.workspace", "declares no workspace check"),
        (
            {"expects": {"workspace": {"file_exists": [""]}}},
            "$.expects.workspace.file_exists[0]",
            "zero-length",
        ),
        (
            {"expects": {"workspace": {"file_exists": ["../x"]}}},
            "$.expects.workspace.file_exists[0]",
            "steps out",
        ),
        (
            {"expects": {"workspace": {"file_absent": ["/etc/passwd"]}}},
            "$.expects.workspace.file_absent[0]",
            "absolute",
        ),
        (
            {"expects": {"workspace": {"file_contains": [{"path": "a/../../b", "needle": "x"}]}}},
            "$.expects.workspace.file_contains[0].path",
            "steps out",
        ),
        (
            {"expects": {"workspace": {"file_exists": ["a"], "file_absent": ["a"]}}},
            "$.expects.workspace.file_absent",
            "both exist and be absent",
        ),
        ({"expects": {"budget": {}}}, "$.expects.budget", "declares no bound"),
        (
            {"expects": {"budget": {"max_llm_calls": 0}}},
            "$.expects.budget.max_llm_calls",
            "none can pass",
        ),
        (
            {"expects": {"budget": {"max_duration_ms": 0}}},
            "$.expects.budget.max_duration_ms",
            "none can pass",
        ),
        (
            {"expects": {"budget": {"max_input_tokens": -1}}},
            "$.expects.budget.max_input_tokens",
            ">= 0",
        ),
        (
            {"expects": {"response_json": {}}},
            "$.expects.response_json",
            'empty "response_json" asserts nothing: give it an entry, or leave the key out',
        ),
        (
            {"expects": {"requests": {"params": {}}}},
            "$.expects.requests.params",
            'empty "params" asserts nothing: give it an entry, or leave the key out',
        ),
        (
            {"expects": {"response_json": {"a": 1}}},
            '$.expects.response_json["a"]',
            "must be empty or start with /",
        ),
        (
            {"expects": {"response_json": {"/a~2": 1}}},
            '$.expects.response_json["/a~2"]',
            "~ must be followed by 0 or 1",
        ),
        ({"setup": {}}, "$.setup", "declares no workspace file"),
        (
            {"setup": {"workspace_files": {"../x": ""}}},
            '$.setup.workspace_files["../x"]',
            "steps out",
        ),
        ({"id": " "}, "$.id", "empty case id"),
        ({"skip": ""}, "$.skip", "empty skip reason"),
    ],
)
def test_new_blocks_are_fail_closed(
    write_fixture: WriteFixture, changes: dict[str, Any], location: str, reason: str
) -> None:
    """Empty blocks, empty strings, escaping paths and bounds no run meets are refused."""
    error = _reject(write_fixture, **changes)
    assert error.location == location
    assert reason in error.reason


def test_seeded_files_and_the_file_tools_leave_a_real_side_effect(
    write_fixture: WriteFixture,
) -> None:
    """The reference loop writes and reads in the case workspace; the grader sees the result."""
    turns = [
        {
            "user_input": "copy in.txt to out/copy.txt",
            "steps": [
                calls_step(("read_file", {"path": "in.txt"})),
                calls_step(("write_file", {"path": "out/copy.txt", "content": "seeded text"})),
                calls_step(("write_file", {"path": "../escape.txt", "content": "x"})),
                text_step("copied"),
            ],
        }
    ]
    expects = {
        "tool_results_contain": [{"tool": "read_file", "needle": "seeded text", "call_index": 0}],
        "workspace": {
            "file_contains": [{"path": "out/copy.txt", "needle": "seeded text"}],
            "file_absent": ["escape.txt"],
        },
    }
    trace = echo_trace(
        turns=turns, expects=expects, setup={"workspace_files": {"in.txt": "seeded text"}}
    )
    case = load_case(str(write_fixture("case.json", trace)))
    report = run_case(case)
    assert report.error is None
    assert report.passed, report.failed_grades
    escaped = report.record.tool_calls[2]
    assert not escaped.success
    assert "steps out of the case workspace" in (escaped.result or "")
    assert not (Path(case.source).parent.parent / "escape.txt").exists()

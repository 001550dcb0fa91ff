"""`harness check` end to end: each weak fixture flagged by the right rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from tests.builders import TWO_ECHOES, calls_step, echo_trace, text_step
from tests.conftest import WriteFixture

REPO = Path(__file__).resolve().parents[2]


def check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    status = main(["check", *argv, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def rules_by_file(report: dict[str, Any]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for finding in report["findings"]:
        found.setdefault(Path(finding["file"]).name, set()).add(finding["rule"])
    return found


def test_weak_fixtures_are_flagged_with_the_right_rule(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Vacuous, unbacked count and order claims, and leaked identities."""
    write_fixture(
        "vacuous.json",
        echo_trace(model_name="greets", kind="negative", expects={"tools_not_used": ["echo"]}),
    )
    write_fixture(
        "two_dispatches.json",
        echo_trace(
            model_name="echo-two-dispatches",
            kind="positive",
            turns=TWO_ECHOES,
            expects={"tools_used": ["echo"]},
        ),
    )
    write_fixture(
        "ordering.json",
        echo_trace(
            model_name="echo-a-then-b-in-order",
            kind="positive",
            turns=TWO_ECHOES,
            expects={
                "exact_tool_calls": 2,
                "tool_arguments_contain": [{"tool": "echo", "needle": '"b"'}],
            },
        ),
    )
    leaky_turns = [
        {
            "user_input": "mail jane.doe@gmail.com, key sk-proj-abcdefghijklmnopqrstuvwx123",
            "steps": [text_step("done")],
        }
    ]
    suite = write_fixture(
        "leaky.json",
        echo_trace(
            model_name="leaky",
            kind="positive",
            turns=leaky_turns,
            expects={"response_contains": ["done"]},
        ),
    ).parent
    status, report = check(["--suite", str(suite)], capsys)
    assert status == 1
    found = rules_by_file(report)
    assert found["vacuous.json"] == {"vacuous"}
    assert found["two_dispatches.json"] == {"claim"}
    assert found["ordering.json"] == {"claim"}
    assert found["leaky.json"] == {"privacy.email", "privacy.credential"}
    claims = {
        f["file"].rsplit("/", 1)[-1]: f["message"]
        for f in report["findings"]
        if f["rule"] == "claim"
    }
    assert "claims N dispatches" in claims["two_dispatches.json"]
    assert "assert exact_tool_calls: 2" in claims["two_dispatches.json"]
    assert "claims order" in claims["ordering.json"]
    assert "call_index" in claims["ordering.json"]
    leaks = [f for f in report["findings"] if f["file"].endswith("leaky.json")]
    assert {f["location"] for f in leaks} == {"$.turns[0].user_input"}


def test_the_repo_suites_check_clean(capsys: pytest.CaptureFixture[str]) -> None:
    """Every suite in evals/ passes check with no error and no warning."""
    suites = [str(REPO / "evals" / name) for name in ("regression", "capability", "live")]
    status, report = check(["--suite", *suites], capsys)
    assert status == 0
    assert report["findings"] == []
    regression = [s for s in report["strengths"] if "/regression/" in s["file"]]
    assert all(s["score"] == 1.0 for s in regression)


def test_mutation_scores_are_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    """Two checks of the same suites report the same scores and survivors."""
    suite = str(REPO / "evals" / "capability")
    _, first = check(["--suite", suite], capsys)
    _, second = check(["--suite", suite], capsys)
    assert first["strengths"] == second["strengths"]


def test_min_strength_fails_low_scores(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --min-strength survivors are reported; with it, a low score fails."""
    suite = write_fixture(
        "weak.json",
        echo_trace(model_name="weak", kind="positive", expects={"response_contains": ["hello"]}),
    ).parent
    status, report = check(["--suite", str(suite)], capsys)
    (row,) = report["strengths"]
    assert status == 0
    assert row["score"] < 0.5
    status, report = check(["--suite", str(suite), "--min-strength", "0.9"], capsys)
    assert status == 1
    assert [f["rule"] for f in report["findings"] if f["severity"] == "error"] == ["strength"]


def test_load_problems_and_balance_are_reported_not_fatal(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rejected fixture is a finding (exit 1); a one-sided suite is a warning."""
    write_fixture("bad.json", echo_trace(turns=[]))
    suite = write_fixture("ok.json", echo_trace(model_name="ok", kind="positive")).parent
    status, report = check(["--suite", str(suite)], capsys)
    assert status == 1
    by_rule = {f["rule"]: f for f in report["findings"]}
    assert by_rule["load"]["location"] == "$.turns"
    assert by_rule["balance"]["severity"] == "warning"
    assert "one-sided" in by_rule["balance"]["message"]


def test_table_output_and_usage_errors(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table ends with a verdict; a bad --min-strength is exit 2."""
    suite = write_fixture("ok.json", echo_trace(model_name="ok", kind="positive")).parent
    assert main(["check", "--suite", str(suite)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("clean: 0 error(s), 1 warning(s)")
    assert main(["check", "--min-strength", "2"]) == 2
    assert "expected a score from 0 to 1" in capsys.readouterr().err


def test_committed_fixture_schema_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    """evals/fixture.schema.json is what `harness schema fixture` prints."""
    assert main(["schema", "fixture"]) == 0
    assert (REPO / "evals" / "fixture.schema.json").read_text() == capsys.readouterr().out


def test_fixtures_validate_against_the_fixture_schema(capsys: pytest.CaptureFixture[str]) -> None:
    """Every repo fixture is valid under the published schema; a typo is not."""
    import jsonschema

    schema = json.loads((REPO / "evals" / "fixture.schema.json").read_text())
    for path in sorted((REPO / "evals").glob("*/*.json")):
        jsonschema.validate(json.loads(path.read_text()), schema)
    broken = echo_trace()
    broken["expects"]["respnse_contains"] = ["x"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_an_order_claim_across_tools_needs_call_index(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Swapping calls to two tools is undetectable, so an order claim must pin call_index."""
    turns = [
        {
            "user_input": "search, then summarise",
            "steps": [
                calls_step(("search", {"q": "x"})),
                calls_step(("summarise", {"text": "y"})),
                text_step("done"),
            ],
        }
    ]
    expects = {"exact_tool_calls": 2, "tools_used": ["search", "summarise"]}
    suite = write_fixture(
        "search_then_summarise.json",
        echo_trace(
            model_name="search-then-summarise", kind="positive", turns=turns, expects=expects
        ),
    ).parent
    status, report = check(["--suite", str(suite)], capsys)
    assert status == 1
    (claim,) = [f for f in report["findings"] if f["rule"] == "claim"]
    assert "claims order, but no expectation uses call_index" in claim["message"]

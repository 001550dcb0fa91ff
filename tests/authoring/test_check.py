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
    assert found["vacuous.json"] == {"vacuous", "replay"}  # it calls the echo it forbids
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
    """Every suite in evals/ passes check with no error; the only warnings are the capability
    cases that call a missing tool on purpose."""
    suites = [str(REPO / "evals" / name) for name in ("regression", "capability", "live")]
    status, report = check(["--may-fail", "--suite", *suites], capsys)
    assert status == 0
    assert {(Path(f["file"]).name, f["rule"]) for f in report["findings"]} == {
        ("needs_calculator_tool.json", "unknown-tool"),
        ("recovery_after_unknown_tool.json", "unknown-tool"),
        ("tool_missing_from_default_registry.json", "unknown-tool"),
        ("chain_longer_than_iteration_cap.json", "replay"),
        ("needs_calculator_tool.json", "replay"),
        ("tool_missing_from_default_registry.json", "replay"),
    }
    assert {f["severity"] for f in report["findings"]} == {"warning"}
    gating = [str(REPO / "evals" / name) for name in ("regression", "live")]
    assert check(["--suite", *gating], capsys)[0] == 0
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
    assert (
        capsys.readouterr()
        .out.rstrip()
        .endswith("no errors, but not clean: 0 error(s), 1 warning(s), 1 fixture(s) with hints")
    )
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


def test_clean_only_when_there_is_nothing_to_report(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A balanced suite of fully killing fixtures is clean; one surviving mutant is not."""
    strong = echo_trace(model_name="p", kind="positive")
    strong["expects"] = {
        "response_contains": ["hello"],
        "exact_tool_calls": 1,
        "tool_arguments_contain": [{"tool": "echo", "needle": "hello"}],
        "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
        "all_tools_succeeded": True,
    }
    write_fixture("p.json", strong)
    greeting = {
        "user_input": "hi",
        "steps": [text_step("Hello there")],
    }
    suite = write_fixture(
        "n.json",
        echo_trace(
            model_name="n",
            kind="negative",
            turns=[greeting],
            expects={"response_contains": ["Hello"], "tools_not_used": ["echo"]},
        ),
    ).parent
    assert main(["check", "--suite", str(suite)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("clean: 0 error(s), 0 warning(s), 0 fixture(s) with hints")
    assert "how to make them stronger" not in out
    weak = echo_trace(model_name="weak", kind="positive", expects={"tools_used": ["echo"]})
    write_fixture("w.json", weak)
    assert main(["check", "--suite", str(suite)]) == 0
    out = capsys.readouterr().out
    assert "no errors, but not clean: 0 error(s), 0 warning(s), 1 fixture(s) with hints" in out
    assert "duplicate call survives: add exact_tool_calls: 1" in out
    assert "blank response survives: add response_contains" in out
    assert 'altered result survives: add tool_results_contain: [{"tool": "echo"' in out


def test_a_fixture_that_does_not_pass_or_replays_nothing_gets_a_hint(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not mutated (the replay fails): an error with the reason, once; a hint to fix it first."""
    failing = echo_trace(model_name="f", kind="positive", expects={"response_contains": ["x"]})
    write_fixture("f.json", failing)
    suite = write_fixture("g.json", echo_trace(model_name="g", kind="negative")).parent
    assert main(["check", "--suite", str(suite)]) == 1
    out = capsys.readouterr().out
    assert out.count('the replay fails: response_contains("x"): not found in response') == 1
    assert out.rstrip().splitlines()[-1].startswith("problems found: 1 error(s)")
    assert "strength -):\n    make the replay pass (see `harness run`)" in out
    _, report = check(["--suite", str(suite)], capsys)
    hints = {row["name"]: row["hints"] for row in report["strengths"]}
    assert hints["f"] == [
        "make the replay pass (see `harness run`): then its mutants can be measured"
    ]


def test_vacuous_negative_and_unknown_tools_get_hints(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A negative case checked only by *_not_* is told what it lacks; an unknown tool warns."""
    write_fixture(
        "neg.json",
        echo_trace(
            model_name="neg",
            kind="negative",
            expects={"tools_not_used": ["echo"], "response_not_contains": ["x"]},
        ),
    )
    unknown = echo_trace(model_name="unknown", kind="positive")
    unknown["turns"][0]["steps"][0] = calls_step(("ech0", {"message": "hello"}))
    unknown["expects"] = {"response_contains": ["hello"]}
    suite = write_fixture("unknown.json", unknown).parent
    status, report = check(["--suite", str(suite)], capsys)
    assert status == 1  # the vacuous negative case is an error
    by_rule = {finding["rule"]: finding for finding in report["findings"]}
    assert "negative case checked only by *_not_* expectations" in by_rule["vacuous"]["message"]
    warning = by_rule["unknown-tool"]
    assert (warning["severity"], warning["file"].endswith("unknown.json")) == ("warning", True)
    assert warning["location"] == "$.turns[0].steps[0].response.tool_calls[0].name"
    assert "'ech0', which is not a registered tool" in warning["message"]


WIRE_EXPECTS = {
    "response_contains": ["hello"],
    "exact_tool_calls": 1,
    "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
}


@pytest.mark.parametrize(
    ("agent", "expects", "total", "survivors"),
    [
        (None, {**WIRE_EXPECTS, "all_tools_succeeded": True}, 6, ["alter_arguments(0)"]),
        ("tests.wire_agents:responses_factory", WIRE_EXPECTS, 4, []),
        ("tests.wire_anthropic:factory", {**WIRE_EXPECTS, "all_tools_succeeded": True}, 5, []),
    ],
    ids=["in-process", "responses", "anthropic"],
)
def test_wire_strength_counts_only_observed_mutants(
    agent: str | None,
    expects: dict[str, Any],
    total: int,
    survivors: list[str],
    write_fixture: WriteFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Over the wire no argument mutant is made, nor a success one without an error flag."""
    suite = write_fixture("a.json", echo_trace(kind="positive", expects=expects)).parent
    flags = ["--agent", agent] if agent else []
    _, report = check(["--suite", str(suite), *flags], capsys)
    (row,) = report["strengths"]
    assert (row["total"], row["survivors"], row["note"]) == (total, survivors, "")


def test_check_refuses_what_an_agent_command_cannot_show(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With agent_command configured, tool_arguments_contain is a load error of the check."""
    expects = {**WIRE_EXPECTS, "tool_arguments_contain": [{"tool": "echo", "needle": "hello"}]}
    write_fixture("a.json", echo_trace(kind="positive", expects=expects))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.harness]\nsuite_dir = "suite"\nagent_command = "true"\n'
    )
    monkeypatch.chdir(tmp_path)
    status, report = check([], capsys)
    assert status == 1
    (finding,) = [f for f in report["findings"] if f["severity"] == "error"]
    assert (finding["rule"], finding["location"]) == ("load", "$.expects.tool_arguments_contain")
    assert "refused in wire mode (agent_command)" in finding["message"]
    assert report["strengths"] == []
    # its tools are its own: a scripted echo is no "unknown tool" when none are declared
    write_fixture("b.json", echo_trace(model_name="b", kind="positive", expects=WIRE_EXPECTS))
    _, report = check([], capsys)
    assert [f["rule"] for f in report["findings"] if f["rule"] == "unknown-tool"] == []


def test_never_failing_tools_not_used_and_skips_are_warnings(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tools_not_used` of a tool nobody can call, and a skipped case, warn without failing."""
    expects = {"response_contains": ["hello"], "tools_not_used": ["shell"]}
    write_fixture("a.json", echo_trace(model_name="a", kind="positive", expects=expects))
    skipped = echo_trace(model_name="b", kind="negative", skip="flaky upstream, see the tracker")
    suite = write_fixture("b.json", skipped).parent
    status, report = check(["--suite", str(suite)], capsys)
    assert status == 0
    by_rule = {f["rule"]: f for f in report["findings"]}
    never = by_rule["never-fails"]
    assert never["severity"] == "warning"
    assert never["location"] == "$.expects.tools_not_used[0]"
    assert "can never fail" in never["message"]
    assert 'did you mean one of "echo", "read_file", "write_file"?' in never["message"]
    assert by_rule["skip"]["severity"] == "warning"
    assert "flaky upstream" in by_rule["skip"]["message"]


def test_a_finding_that_quotes_the_fixture_shows_no_credential(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skip reason holding a key is reported as a warning with the key redacted."""
    trace = echo_trace(
        model_name="skipped", kind="positive", skip="until sk_live_abcdefghij0123 rotates"
    )
    suite = write_fixture("skipped.json", trace).parent
    _, report = check(["--suite", str(suite)], capsys)
    skips = [f["message"] for f in report["findings"] if f["rule"] == "skip"]
    assert skips == [
        "skipped: until sk_l*[REDACTED] rotates (it is not run, and never counts as passed)"
    ]


def test_a_fixture_checked_only_by_request_checks_is_not_vacuous(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run that sent no request fails `requests.tools_offered`: the empty-run lint sees it."""
    expects = {"requests": {"tools_offered": ["echo"]}}
    suite = write_fixture("a.json", echo_trace(kind="positive", expects=expects)).parent
    _, report = check(["--suite", str(suite), "--agent", "tests.wire_agents:factory"], capsys)
    assert "vacuous" not in {f["rule"] for f in report["findings"]}
    assert [row["file"] for row in report["strengths"]] == [str(suite / "a.json")]


def test_the_check_tables_are_laid_out_like_every_table() -> None:
    """Findings and strengths in aligned columns, text never read as a number, names escaped."""
    from harness._cli.commands.check import render_check
    from harness.authoring.check_report import (
        CheckFinding,
        CheckReport,
        FixtureStrength,
        SuiteBalance,
    )

    finding = CheckFinding(
        severity="warning", rule="skip", file="s/a.json", location="$.skip", message="1.50"
    )
    strong = FixtureStrength(
        file="s/a.json",
        name="a\x1b[31m",
        kind="positive",
        killed=3,
        total=4,
        score=0.75,
        survivors=("drop call",),
    )
    balance = SuiteBalance(suite="s", positive=1, negative=0, undeclared=0)
    report = CheckReport(findings=(finding,), strengths=(strong,), balances=(balance,))
    assert render_check(report).splitlines()[:9] == [
        "         rule    file      where    finding",
        "-------  ------  --------  -------  ---------",
        "warning  skip    s/a.json  $.skip   1.50",
        "",
        "s: 1 positive, 0 negative, 0 without a kind",
        "",
        "fixture    kind      killed    score    surviving mutants",
        "---------  --------  --------  -------  -------------------",
        "a\\x1b[31m  positive  3/4       0.75     drop call",
    ]

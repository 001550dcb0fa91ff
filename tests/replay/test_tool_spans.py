"""Tool spans end to end: real agents export `execute_tool` spans, the harness grades them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._cli.main import main
from tests.builders import assert_timed, text_step
from tests.conftest import WriteFixture

ECHO_42: dict[str, Any] = {
    "model_name": "echo-order-42",
    "turns": [
        {
            "user_input": "Echo order 42",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {"id": "call_1", "name": "echo", "arguments": {"message": "order 42"}}
                        ],
                    }
                },
                text_step("Echoed: order 42"),
            ],
        },
        {
            "user_input": "And order 7",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {"id": "call_2", "name": "echo", "arguments": {"message": "order 7"}}
                        ],
                    }
                },
                text_step("Echoed: order 7"),
            ],
        },
    ],
    "expects": {
        "tool_arguments_contain": [
            {"tool": "echo", "needle": "order 42", "call_index": 0},
            {"tool": "echo", "needle": "order 7", "call_index": 1},
        ],
        "tool_results_contain": [{"tool": "echo", "needle": "order 7"}],
        "all_tools_succeeded": True,
    },
}


def run(suite: Path, tmp_path: Path, *flags: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    status = main(["run", "--suite", str(suite), "--json", str(report), *flags])
    return status, json.loads(report.read_text())


def checks(doc: dict[str, Any]) -> dict[str, bool]:
    return {grade["check"]: grade["passed"] for grade in doc["cases"][0]["grades"]}


def test_an_honest_agent_passes_from_its_spans(write_fixture: WriteFixture, tmp_path: Path) -> None:
    """The calls are recorded from the spans: what the tool received, what it returned."""
    suite = write_fixture("echo.json", ECHO_42).parent
    status, doc = run(suite, tmp_path, "--agent", "tests.otel_agents:factory", "--tool-spans")
    case = doc["cases"][0]
    assert case["error"] is None
    assert status == 0
    assert all(checks(doc).values())
    assert [(c["arguments"], c["result"], c["observed"]) for c in case["tool_calls"]] == [
        ('{"message":"order 42"}', "order 42", "span"),
        ('{"message":"order 7"}', "order 7", "span"),
    ]


def test_span_calls_are_timed_within_their_case(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """Each call's timing comes from its span: known, non-negative, within the case, in order."""
    suite = write_fixture("echo.json", ECHO_42).parent
    status, doc = run(suite, tmp_path, "--agent", "tests.otel_agents:factory", "--tool-spans")
    (case,) = doc["cases"]
    assert status == 0, case["error"]
    assert [call["observed"] for call in case["tool_calls"]] == ["span", "span"]
    assert_timed(case["tool_calls"], case["duration_s"])


def test_arguments_other_than_the_model_asked_for_fail(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """The wire alone would grade the scripted arguments; the span shows what the tool got."""
    suite = write_fixture("echo.json", ECHO_42).parent
    flags = ("--agent", "tests.otel_agents:wrong_arguments_factory", "--tool-spans")
    status, doc = run(suite, tmp_path, *flags)
    assert doc["cases"][0]["error"] is None
    assert status == 1
    failed = {check for check, passed in checks(doc).items() if not passed}
    assert failed == {
        'tool_arguments_contain("echo"[0], "order 42")',
        'tool_arguments_contain("echo"[1], "order 7")',
        'tool_results_contain("echo", "order 7")',
    }


def test_a_failure_the_model_is_told_was_a_success_fails(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """The span's ERROR status makes the call a failure, whatever the model was told."""
    suite = write_fixture("echo.json", ECHO_42).parent
    flags = ("--agent", "tests.otel_agents:hidden_failure_factory", "--tool-spans")
    status, doc = run(suite, tmp_path, *flags)
    assert doc["cases"][0]["error"] is None
    assert status == 1
    assert checks(doc)["all_tools_succeeded(true)"] is False
    assert [c["success"] for c in doc["cases"][0]["tool_calls"]] == [False, False]


def test_an_agent_that_exports_no_spans_errors_its_case(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """A scripted call with no span is named, never passed on the wire's word."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.harness]\ntool_spans = true\ntool_spans_grace_s = 0.2\n")
    suite = write_fixture("echo.json", ECHO_42).parent
    flags = ("--agent", "tests.otel_agents:no_spans_factory", "--config", str(pyproject))
    status, doc = run(suite, tmp_path, *flags)
    assert status == 1
    error = doc["cases"][0]["error"]
    assert 'the agent exported no execute_tool span for call "call_1" (echo)' in error
    assert 'call "call_2"' in error


SUBPROCESS_AGENT = """
import json, sys
from openai import OpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # configured by env only
trace.set_tracer_provider(provider)
tracer = trace.get_tracer("agent")
client = OpenAI()
messages = []
for line in sys.stdin:
    messages.append({"role": "user", "content": json.loads(line)["user_input"]})
    while True:
        message = client.chat.completions.create(model="any", messages=messages).choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            with tracer.start_as_current_span("execute_tool echo") as span:
                span.set_attribute("gen_ai.operation.name", "execute_tool")
                span.set_attribute("gen_ai.tool.name", call.function.name)
                span.set_attribute("gen_ai.tool.call.id", call.id)
                span.set_attribute("gen_ai.tool.call.arguments", call.function.arguments)
                text = json.loads(call.function.arguments).get("message", "(empty)")
                span.set_attribute("gen_ai.tool.call.result", text)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    print(json.dumps({"response": message.content}), flush=True)
provider.shutdown()
"""


def test_subprocess_agents_configured_by_env_alone_stay_in_their_case(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """`--jobs 2`: each case's spans carry its own header and land in that case only."""
    import copy
    import sys

    for index in range(4):
        fixture = copy.deepcopy(ECHO_42)
        fixture["model_name"] = f"echo-{index}"
        for turn in fixture["turns"]:
            call = turn["steps"][0]["response"]["tool_calls"][0]
            call["arguments"]["message"] += f" case {index}"
        for payload in fixture["expects"]["tool_arguments_contain"]:
            payload["needle"] += f" case {index}"
        write_fixture(f"echo_{index}.json", fixture)
    script = tmp_path / "agent.py"
    script.write_text(SUBPROCESS_AGENT)
    command = f"{sys.executable} {script}"
    flags = ("--agent-command", command, "--tool-spans", "--jobs", "2")
    status, doc = run(tmp_path / "suite", tmp_path, *flags)
    assert [case["error"] for case in doc["cases"]] == [None] * 4
    assert status == 0
    for index, case in enumerate(doc["cases"]):
        assert [call["observed"] for call in case["tool_calls"]] == ["span", "span"]
        assert all(f"case {index}" in call["arguments"] for call in case["tool_calls"])


def test_pydantic_ai_built_in_instrumentation_is_recorded(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """pydantic-ai's own `Instrumentation` spans, unmodified, are the record of the calls."""
    suite = write_fixture("echo.json", ECHO_42).parent
    factory = "tests.otel_agents:pydantic_ai_factory"
    status, doc = run(suite, tmp_path, "--agent", factory, "--tool-spans")
    case = doc["cases"][0]
    assert case["error"] is None
    assert status == 0, checks(doc)
    assert [(c["arguments"], c["result"], c["observed"]) for c in case["tool_calls"]] == [
        ('{"message":"order 42"}', "order 42", "span"),
        ('{"message":"order 7"}', "order 7", "span"),
    ]


def test_a_pydantic_ai_tool_that_fails_fails_the_fixture(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """Over the wire alone the call looks answered; its span says the tool failed."""
    suite = write_fixture("echo.json", ECHO_42).parent
    flags = ("--agent", "tests.otel_agents:pydantic_ai_failing_tool_factory", "--tool-spans")
    status, doc = run(suite, tmp_path, *flags)
    assert doc["cases"][0]["error"] is None
    assert status == 1
    assert checks(doc)["all_tools_succeeded(true)"] is False
    assert [c["success"] for c in doc["cases"][0]["tool_calls"]] == [False, False]


def test_tool_spans_off_gives_python_agents_no_export(
    write_fixture: WriteFixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without tool spans, `context.otel` is None: the span agent refuses to run."""
    suite = write_fixture("echo.json", ECHO_42).parent
    status, doc = run(suite, tmp_path, "--agent", "tests.otel_agents:factory")
    assert status == 1
    assert "run with tool spans on" in doc["cases"][0]["error"]


def test_a_missing_extra_exits_2_with_one_line(
    write_fixture: WriteFixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import sys

    name = "opentelemetry.proto.collector.trace.v1.trace_service_pb2"
    monkeypatch.setitem(sys.modules, name, None)
    suite = write_fixture("echo.json", ECHO_42).parent
    assert main(["run", "--suite", str(suite), "--tool-spans"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "harness: --tool-spans: tool spans need the OpenTelemetry protocol messages: "
        "pip install 'replay-harness[otel]'"
    )


def test_capture_off_errors_exactly_the_expectations_that_need_it(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """No arguments or results in the spans: `tool_arguments_contain` and `tool_results_contain`
    cannot be graded and say why (the wire's results are never taken instead); without them
    the same run grades, its calls recorded without results."""
    factory = ("--agent", "tests.otel_agents:pydantic_ai_no_content_factory", "--tool-spans")
    suite = write_fixture("echo.json", ECHO_42).parent
    status, doc = run(suite, tmp_path, *factory)
    assert status == 1
    assert doc["cases"][0]["error"] == (
        'tool_arguments_contain("echo") cannot be graded: the span of call "call_1" (echo) '
        "has no gen_ai.tool.call.arguments; is content capture on?; "
        'tool_results_contain("echo") cannot be graded: the span of call "call_1" (echo) '
        "has no gen_ai.tool.call.result; is content capture on?"
    )
    expects = {**ECHO_42["expects"], "tool_arguments_contain": [], "tool_results_contain": []}
    write_fixture("echo.json", {**ECHO_42, "expects": expects})
    status, doc = run(suite, tmp_path, *factory)
    assert doc["cases"][0]["error"] is None
    assert status == 0
    assert [call["result"] for call in doc["cases"][0]["tool_calls"]] == [None, None]


def test_check_takes_tool_spans_and_counts_argument_and_success_mutants(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With tool spans the argument and success mutants are killable, so they count."""
    regression = str(Path(__file__).resolve().parents[2] / "evals" / "regression")
    assert main(["check", "--suite", regression, "--format", "json", "--tool-spans"]) == 0
    strengths = json.loads(capsys.readouterr().out)["strengths"]
    unicode_case = next(s for s in strengths if "unicode" in s["file"])
    assert unicode_case["score"] == 1.0
    assert unicode_case["total"] >= 2


def test_check_counts_the_argument_and_success_mutants_of_span_records(
    write_fixture: WriteFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over the bare wire those mutants are not made (nothing observes them); from spans they
    are, and a fixture that checks only results lets them survive, named."""
    only_results = {
        **ECHO_42,
        "expects": {"tool_results_contain": [{"tool": "echo", "needle": "7"}]},
    }
    suite = str(write_fixture("echo.json", only_results).parent)

    def strength(*flags: str) -> dict[str, Any]:
        main(["check", "--suite", suite, "--format", "json", *flags])
        found: dict[str, Any] = json.loads(capsys.readouterr().out)["strengths"][0]
        return found

    wire = strength("--agent", "tests.wire_agents:factory")
    spans = strength("--agent", "tests.otel_agents:factory", "--tool-spans")
    assert wire["total"] > 0
    assert spans["total"] > wire["total"]
    assert not any("argument" in s or "success" in s for s in wire["survivors"])
    assert any("argument" in s for s in spans["survivors"])


def test_workers_forked_after_the_receiver_started_still_receive(
    write_fixture: WriteFixture, tmp_path: Path
) -> None:
    """A supervised worker forgets the receiver its parent started (its serving thread was
    not forked) and starts its own, so the spans reach the case."""
    from harness.replay.otlp import shared_receiver

    shared_receiver()  # started in this (the parent) process
    suite = write_fixture("echo.json", ECHO_42).parent
    status, doc = run(suite, tmp_path, "--agent", "tests.otel_agents:factory", "--tool-spans")
    assert doc["cases"][0]["error"] is None
    assert status == 0

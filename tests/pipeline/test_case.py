"""run_case and run_suite: isolation, errored cases, and a suite that goes on."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

import msgspec
import pytest

from harness.fixtures.format import Case, LlmTrace
from harness.fixtures.suite import Suite
from harness.messages import ModelProvider
from harness.pipeline.case import run_case
from harness.pipeline.dispatch import run_suite
from harness.pipeline.setup import Setup
from harness.replay.agent import Agent
from harness.replay.context import CaseContext
from harness.replay.tools import ToolOutput
from harness.replay.workspace import Workspace
from tests.builders import Forging, calls_step, echo_trace, text_step


def case(name: str = "demo", **changes: Any) -> Case:
    trace = msgspec.convert(echo_trace(model_name=name, **changes), LlmTrace)
    return Case(source=f"{name}.json", trace=trace)


def one_turn(*steps: dict[str, Any], user_input: str = "go") -> list[dict[str, Any]]:
    return [{"user_input": user_input, "steps": list(steps)}]


def test_passing_case_is_graded_with_its_record() -> None:
    """A good replay yields grades, the recorded calls and the consumed tokens."""
    report = run_case(case())
    assert report.passed
    assert report.error is None
    assert next(g.check for g in report.grades) == 'response_contains("hello")'
    assert report.record.tool_names == ("echo",)
    assert (report.record.input_tokens, report.record.output_tokens) == (80, 25)
    assert report.duration >= 0


BROKEN = {
    "over-specified": (
        one_turn(text_step("done"), text_step("never asked")),
        "ReplayProvider(broken): turn 0 scripted 1 step(s) the agent never requested — "
        "the trace over-specifies this turn's LLM round-trips",
    ),
    "under-specified": (
        one_turn(calls_step(("echo", {"message": "x"}))),
        "ReplayProvider(broken): turn 0 requested more LLM responses than the trace provides "
        "for that turn",
    ),
    "iteration-cap": (
        one_turn(*[calls_step(("echo", {"message": str(i)})) for i in range(11)]),
        "Agent exceeded maximum tool iterations (10)",
    ),
    "blank-input": (
        one_turn(text_step("hi"), user_input=" "),
        "empty user message: refusing to dispatch a blank turn",
    ),
    "empty-terminal-reply": (
        one_turn(text_step("")),
        "provider completed without final text or tool calls",
    ),
}


@pytest.mark.parametrize(("turns", "message"), BROKEN.values(), ids=BROKEN.keys())
def test_broken_run_errors_its_case_and_the_suite_goes_on(
    turns: list[dict[str, Any]], message: str
) -> None:
    """A run that goes wrong is an errored case with the documented message; its neighbours pass."""
    suite = Suite(
        name="mixed",
        directory="mixed",
        cases=(case("a-good"), case("broken", turns=turns), case("z-good")),
    )
    report = run_suite(suite)
    assert [c.passed for c in report.cases] == [True, False, True]
    broken = report.cases[1]
    assert broken.error == message
    assert broken.grades == ()
    assert (report.passed, report.failed, report.errored) == (2, 1, 1)
    assert not report.all_passed


def test_partial_record_survives_an_error() -> None:
    """Calls made before the error stay in the record for the reports."""
    turns = one_turn(*[calls_step(("echo", {"message": str(i)})) for i in range(11)])
    report = run_case(case(turns=turns))
    assert len(report.record.tool_calls) == 10


def test_agent_exception_of_any_kind_errors_the_case() -> None:
    """An unexpected exception from the agent is reported with its type."""

    class Broken:
        def turn(self, user_input: str) -> str:
            raise KeyError("state")

    def factory(context: CaseContext) -> Agent:
        return Broken()

    report = run_case(case(), Setup(agent_factory=factory))
    assert report.error == "KeyError: 'state'"
    assert not report.passed


def test_agent_is_closed_after_its_case_and_a_failing_close_errors_only_it() -> None:
    """close() runs after the turns, pass or fail; if it raises, that case errors, not the run."""
    closed: list[str] = []

    class Closing:
        def __init__(self, provider: ModelProvider, fail: bool) -> None:
            self.provider, self.fail = provider, fail

        def turn(self, user_input: str) -> str:
            return self.provider.complete([], []).text

        def close(self) -> None:
            closed.append("closed")
            if self.fail:
                raise OSError("socket already gone")

    def factory(fail: bool) -> Any:
        def make(context: CaseContext) -> Agent:
            return Closing(context.provider, fail)

        return make

    text_only = one_turn(text_step("hello"))
    good = run_case(case(turns=text_only), Setup(agent_factory=factory(fail=False)))
    bad = run_case(case(turns=text_only), Setup(agent_factory=factory(fail=True)))
    assert closed == ["closed", "closed"]
    assert good.error is None
    assert bad.error == "OSError: socket already gone"
    assert bad.traceback is not None
    assert "socket already gone" in bad.traceback


def test_each_case_gets_a_fresh_workspace_removed_after() -> None:
    """A workspace is private to its case and gone once the case ends."""
    seen: list[str] = []

    class Touching:
        def __init__(self, provider: ModelProvider, workspace: Workspace) -> None:
            self.provider = provider
            self.workspace = workspace

        def turn(self, user_input: str) -> str:
            path = self.workspace.path
            assert os.listdir(path) == []
            with open(os.path.join(path, "note.txt"), "w") as file:
                file.write("mine")
            seen.append(path)
            return self.provider.complete([], []).text

    def factory(context: CaseContext) -> Agent:
        return Touching(context.provider, context.workspace)

    text_only = one_turn(text_step("hello"))
    first = run_case(case(turns=text_only), Setup(agent_factory=factory))
    second = run_case(case(turns=text_only), Setup(agent_factory=factory))
    assert first.error is None
    assert second.error is None
    assert len(set(seen)) == 2
    assert not any(os.path.exists(path) for path in seen)


def test_cases_do_not_share_state() -> None:
    """Replaying the same case twice gives the same record, timing aside."""
    first, second = run_case(case()), run_case(case())
    assert first.record.untimed() == second.record.untimed()
    assert first.grades == second.grades


def test_suite_report_keeps_case_order_and_metadata() -> None:
    """The suite report carries name, folder, mode and the cases in order."""
    suite = Suite(name="s", directory="evals/s", cases=(case("b"), case("a")))
    report = run_suite(suite)
    assert [c.name for c in report.cases] == ["b", "a"]
    assert (report.suite, report.directory, report.mode) == ("s", "evals/s", "replay")
    assert report.started_at.endswith("Z")


class ForgingAgent:
    """Answers every turn with a forging text, and has its tool results forged too."""

    def __init__(self, context: CaseContext) -> None:
        self.context = context

    def turn(self, user_input: str) -> str:
        reply = self.context.provider.complete([], self.context.tools.specs())
        for call in reply.tool_calls:
            self.context.tools.dispatch(call)
        self.context.provider.complete([], ())
        return Forging("nothing")


class ForgingEcho:
    name = "echo"
    description = "echo, forged"
    parameters: Mapping[str, Any] = {}

    def call(self, arguments: Any) -> ToolOutput:
        return ToolOutput(text=Forging("nothing"))


def test_a_str_subclass_cannot_forge_a_pass() -> None:
    """The final response and tool results are graded as plain text: both checks fail."""
    expects = {
        "response_contains": ["goodbye"],
        "tool_results_contain": [{"tool": "echo", "needle": "secret"}],
    }
    setup = Setup(agent_factory=ForgingAgent, tools=lambda: [ForgingEcho()])
    report = run_case(case(expects=expects), setup)
    assert report.error is None
    failed = [grade.check for grade in report.grades if not grade.passed]
    assert failed == ['response_contains("goodbye")', 'tool_results_contain("echo", "secret")']
    assert not report.passed


def test_a_suite_without_a_timeout_runs_supervised_and_errs_per_case() -> None:
    """No case_timeout: the supervised workers wait as long as it takes; sys.exit still errs."""
    from tests.contained_agents import misbehaving

    cases = (case("exit3"), case("fine"))
    suite = Suite(name="s", directory=".", cases=cases)
    report = run_suite(suite, setup=Setup(agent_factory=misbehaving, case_timeout=None))
    assert [c.error for c in report.cases] == ["the agent called sys.exit(3)", None]
    assert report.cases[1].passed


class _WrongIdThenGivesUp:
    """A wire agent that answers a scripted call under a wrong id, then raises."""

    def __init__(self, context: CaseContext) -> None:
        from tests.wire_agents import wrong_id_factory

        self.inner = wrong_id_factory(context)

    def close(self) -> None:
        self.inner.close()

    def turn(self, user_input: str) -> str:
        self.inner.turn(user_input)
        raise RuntimeError("the agent gave up")


WRONG_ID = 'the agent sent a tool result for id "call_bogus"'
BOTH = '(scripted so far: "call_1"); scripted tool call "call_1"'  # two problems, joined


def test_a_wire_problem_and_an_agent_error_together_error_the_case() -> None:
    """Both are named, the wire's first: such a case is never graded."""
    report = run_case(case(), Setup(agent_factory=_WrongIdThenGivesUp))
    assert report.error is not None
    assert report.error.startswith(WRONG_ID)
    assert BOTH in report.error
    assert report.error.endswith("(then: RuntimeError: the agent gave up)")
    assert (report.grades, report.passed) == ((), False)


def test_a_wire_problem_alone_is_the_whole_error() -> None:
    """With no agent error after it, the wire's problems are the case's error, nothing added."""
    from tests.wire_agents import wrong_id_factory

    report = run_case(case(), Setup(agent_factory=wrong_id_factory))
    assert report.error is not None
    assert report.error.startswith(WRONG_ID)
    assert BOTH in report.error
    assert report.error.endswith("although its loop went on")
    assert (report.grades, report.passed) == ((), False)


def test_a_failing_observer_errors_its_case_though_the_grades_pass() -> None:
    """A project observer that raised means the case's evidence is incomplete: never a pass."""
    from tests.test_faults import BrokenObserver

    report = run_case(case(), Setup(observers=(BrokenObserver(),)))
    assert report.error == "observer BrokenObserver failed: RuntimeError: metrics backend down"
    assert not report.passed


class _Exits:
    """An in-process agent that calls sys.exit(4) on its first turn."""

    def __init__(self, context: CaseContext) -> None:
        self.context = context

    def turn(self, user_input: str) -> str:
        raise SystemExit(4)


def test_an_in_process_agent_exit_errors_its_case_and_returns() -> None:
    """Unsupervised (run_case called here): sys.exit() errors the case, the caller goes on."""
    report = run_case(case(), Setup(agent_factory=_Exits))
    assert report.error == "the agent called sys.exit(4)"
    assert not report.passed
    assert report.grades == ()


class _InterruptsTheHarness:
    """An agent during whose turn the harness gets Ctrl-C (SIGINT to this process)."""

    def __init__(self, context: CaseContext) -> None:
        self.context = context

    def turn(self, user_input: str) -> str:
        import signal
        import time

        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(2)  # the signal reaches the harness's thread meanwhile
        return "hello"


def test_ctrl_c_during_an_unsupervised_case_stops_the_run() -> None:
    """A Ctrl-C that reaches the harness mid-case is the run's interrupt, not a case error."""
    with pytest.raises(KeyboardInterrupt):
        run_case(case(), Setup(agent_factory=_InterruptsTheHarness, case_timeout=30))


WIRE_AGENT = """
import json, os, sys, urllib.request
for line in sys.stdin:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "go"}]}).encode()
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=body,
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
                 "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        text = json.load(answer)["choices"][0]["message"]["content"]
    print(json.dumps({"response": text}), flush=True)
"""


def _command_case(**expects: Any) -> Case:
    trace = echo_trace(model_name="wire", turns=one_turn(text_step("hello there")))
    trace["expects"] = expects
    return Case(source="wire.json", trace=msgspec.convert(trace, LlmTrace))


def test_a_command_agent_reaches_the_endpoint_through_its_environment(tmp_path: Any) -> None:
    """An agent_command agent finds the replay at OPENAI_BASE_URL with OPENAI_API_KEY."""
    script = tmp_path / "agent.py"
    script.write_text(WIRE_AGENT)
    setup = Setup(agent_command=(sys.executable, str(script)))
    report = run_case(_command_case(response_contains=["hello there"]), setup)
    assert report.error is None
    assert report.passed


def test_an_unobservable_expectation_errors_a_command_agent_case_by_its_mode(
    tmp_path: Any,
) -> None:
    """tool_arguments_contain over agent_command's wire: the case errors, naming the mode."""
    script = tmp_path / "agent.py"
    script.write_text(WIRE_AGENT)
    setup = Setup(agent_command=(sys.executable, str(script)))
    expects = {
        "response_contains": ["hello there"],
        "tool_arguments_contain": [{"tool": "echo", "needle": "x"}],
    }
    report = run_case(_command_case(**expects), setup)
    assert report.error is not None
    assert "tool_arguments_contain" in report.error
    assert "agent_command" in report.error
    assert not report.passed

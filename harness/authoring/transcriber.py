"""`harness record`: a real run of an agent, against a real model, written down as a fixture.

The agent talks to the replay endpoint in proxy mode, which forwards each of its model
requests to the upstream and keeps the exchange. Each answer becomes a scripted step of the
turn it was made in, with its call ids, names, arguments and token counts; the results the
agent sent back give the suggested expectations (`harness.authoring.suggestions`). Before the
fixture is written it must load, pass the privacy lint, replay green through the same agent,
and fail for every mutant of that replay; it is then written atomically, so nothing
half-written is ever left.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any, cast

import msgspec

from harness.authoring.hints import uncaught
from harness.authoring.mutation import Strength, strength
from harness.authoring.observation import needle, observations
from harness.authoring.privacy import PrivacyLint
from harness.authoring.suggestions import argument_checks, suggest
from harness.authoring.transcript import Reply, read_reply, tool_results
from harness.errors import CaseError, UsageError
from harness.fixtures.format import Case, LlmTrace
from harness.fixtures.reading import decode_trace
from harness.grading.expectations import evaluate_expects
from harness.grading.result import GradeResult
from harness.masking import without_held
from harness.pipeline.case import run_case
from harness.pipeline.setup import Setup
from harness.recording import RecordingObserver, RunRecord
from harness.replay.context import CaseContext
from harness.replay.driver import converse
from harness.replay.process import AgentProcess
from harness.replay.proxy import PLACEHOLDER_KEY, Exchange, ProxyServer
from harness.replay.tools import ToolRegistry
from harness.replay.workspace import Workspace
from harness.reports.artifact import write_atomic

__all__ = ["Recorded", "record"]

SCHEMA_FILE = "fixture.schema.json"
"""The fixture schema `harness init` writes into `evals/`, which `$schema` points at."""


class Recorded(msgspec.Struct, frozen=True, kw_only=True):
    """What `record` wrote."""

    path: str
    name: str
    steps: int
    calls: int
    killed: int
    mutants: int
    survivors: tuple[str, ...] = ()
    """The mutants the fixture lets live (written only with `allow_weak`)."""


def record(
    setup: Setup,
    *,
    upstream: str,
    out: str,
    inputs: Sequence[str],
    allow_private: bool = False,
    allow_weak: bool = False,
    timeout: float = 120.0,
) -> Recorded:
    """Run the agent of `setup` against `upstream` and write what it did to `out`.

    Before it is written, the fixture must replay green through the same agent and kill
    every mutant of that replay (`harness.authoring.mutation`): a fixture a broken agent
    passes is not written unless `allow_weak`.

    Raises:
        UsageError: The upstream failed or cannot be reached, the agent failed, the run has
            nothing that could fail, the fixture holds private data, it does not replay, or
            a mutant survives it.
    """
    name = os.path.splitext(os.path.basename(out))[0].replace("_", "-") or "recorded"
    with ProxyServer(upstream, timeout=timeout) as proxy:
        boundaries = _play(setup, proxy, name, inputs)
        exchanges = list(proxy.exchanges)
    failed = next((exchange for exchange in exchanges if exchange.error), None)
    if failed is not None:
        raise UsageError(f"harness record: {failed.error}")
    shows_failure = setup.tool_spans or all(e.protocol == "anthropic" for e in exchanges)
    # The upstream may answer with the recorder's own key: it is never written down.
    document = _without_held(
        _fixture(name, inputs, exchanges, boundaries, shows_failure=shows_failure)
    )
    schema = _schema(out)
    if schema is not None:
        document = {"$schema": schema, **document}
    _encodable(json.dumps(document, indent=2, ensure_ascii=False))  # before it is replayed
    measured = _prove(out, document, setup)  # adds what only the replay shows
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if not allow_private:
        _lint(out, document)
    if measured.survivors and not allow_weak:
        raise UsageError(f"{out}: not written: {_weakness(measured.survivors)}")
    _write(out, text)
    calls = sum(
        len(step["response"].get("tool_calls", ()))
        for turn in document["turns"]
        for step in turn["steps"]
    )
    return Recorded(
        path=out,
        name=name,
        steps=len(exchanges),
        calls=calls,
        killed=measured.killed,
        mutants=measured.total,
        survivors=measured.survivors,
    )


def _prove(out: str, document: dict[str, Any], setup: Setup) -> Strength:
    """Replay the fixture through the agent, add what only the replay shows, and grade it
    against every mutant of that replay.

    Raises:
        UsageError: The fixture does not replay green.
    """
    case = _case(out, document)
    report = run_case(case, setup)
    if not report.passed:
        raise _not_green(out, report.error or _why(report.grades))
    if _observed(document["expects"], case, report.record):
        case = _case(out, document)
        grades = evaluate_expects(case.expects, report.record)
        if not all(grade.passed for grade in grades):
            raise _not_green(out, _why(grades))
    return strength(case, report.record)


def _why(grades: Sequence[GradeResult]) -> str:
    failed = next((grade for grade in grades if not grade.passed), None)
    return "it did not pass" if failed is None else f"{failed.check}: {failed.detail}"


def _not_green(out: str, why: str) -> UsageError:
    return UsageError(f"{out}: the recorded fixture does not replay green: {why}")


def _lint(out: str, document: dict[str, Any]) -> None:
    """Refuse a fixture holding what looks like private data, naming where."""
    findings = PrivacyLint().scan(document)
    if findings:
        first = findings[0]
        raise UsageError(
            f"{out}: {first.location}: {first.message} (privacy lint; nothing written; "
            "pass --allow-private to keep it)"
        )


def _observed(expects: dict[str, Any], case: Case, run: RunRecord) -> bool:
    """Add to `expects` what only the replay shows: results the agent sent as text, and the
    arguments tool spans saw. Whether anything was added."""
    sent = observations(case, run)
    if sent:
        checks = [{"needle": needle(o), "turn": o.turn, "step": o.step} for o in sent]
        expects["requests"] = {"conversation_contains": checks}
    spans = [(call.name, call.arguments) for call in run.tool_calls if call.observed == "span"]
    if spans:
        expects["tool_arguments_contain"] = argument_checks(spans)
    return bool(sent or spans)


def _case(out: str, document: dict[str, Any]) -> Case:
    text = json.dumps(document, ensure_ascii=False)
    return Case(trace=decode_trace(out, text.encode()), source=out)


def _weakness(survivors: Sequence[str]) -> str:
    """Which mutants a broken agent could be, and why no expectation the run supports
    catches them."""
    reasons = "; ".join(f"{label} survives: {uncaught(label)}" for label in survivors)
    return (
        f"{len(survivors)} mutant(s) of the run pass the fixture, so an agent broken that way "
        f"would pass: {reasons} (pass --allow-weak to write it anyway)"
    )


def _schema(out: str) -> str | None:
    """The fixture schema's path relative to where `out` is written, from the nearest folder
    at or above it that holds `fixture.schema.json`; None when none does."""
    folder = os.path.dirname(os.path.abspath(out))
    here = folder
    while True:
        candidate = os.path.join(here, SCHEMA_FILE)
        if os.path.isfile(candidate):
            return os.path.relpath(candidate, folder).replace(os.sep, "/")
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _play(setup: Setup, proxy: ProxyServer, name: str, inputs: Sequence[str]) -> list[int]:
    """Play the turns to the agent; the number of exchanges made by the end of each turn."""
    boundaries: list[int] = []

    class _Turns:
        def finish_turn(self, index: int) -> None:
            boundaries.append(proxy.settled())

    trace = msgspec.convert(
        {
            "model_name": name,
            "turns": [{"user_input": text, "steps": [_PLACEHOLDER]} for text in inputs],
        },
        LlmTrace,
    )
    agent = _agent(setup, proxy, name)
    try:
        converse(agent, trace, cast(Any, _Turns()))
    except CaseError as exc:
        if not any(exchange.error for exchange in proxy.exchanges):
            raise UsageError(f"harness record: the agent failed: {exc}") from None
    except Exception as exc:
        if not any(exchange.error for exchange in proxy.exchanges):
            reason = f"{type(exc).__name__}: {exc}"
            raise UsageError(f"harness record: the agent failed: {reason}") from None
    finally:
        close = getattr(agent, "close", None)
        if close is not None:
            close()
    return boundaries


_PLACEHOLDER = {"response": {"type": "text", "content": ""}}


def _agent(setup: Setup, proxy: ProxyServer, name: str) -> Any:
    env = {
        "OPENAI_BASE_URL": proxy.url,
        "OPENAI_API_KEY": PLACEHOLDER_KEY,
        "ANTHROPIC_BASE_URL": proxy.root,
        "ANTHROPIC_API_KEY": PLACEHOLDER_KEY,
        "HARNESS_CASE": name,
    }
    if setup.agent_command:
        return AgentProcess(setup.agent_command, env, setup.root)

    endpoint = _ProxyEndpoint(proxy)
    context = CaseContext(
        case_name=name,
        provider=_NoProvider(),
        tools=ToolRegistry(setup.tools(), RecordingObserver()),
        workspace=Workspace(),
        endpoint=cast(Any, endpoint),
    )
    return setup.agent_factory(context)


class _ProxyEndpoint:
    """What a Python agent's `CaseContext` reads its URLs and key from while recording."""

    def __init__(self, proxy: ProxyServer) -> None:
        self.url = proxy.url
        self.anthropic_url = proxy.root
        self.api_key = PLACEHOLDER_KEY

    def open(self) -> _ProxyEndpoint:
        return self


class _NoProvider:
    def complete(self, messages: Any, tools: Any) -> Any:
        raise UsageError(
            "harness record needs an agent that talks to its model over HTTP "
            "(context.base_url), not through context.provider"
        )


def _fixture(
    name: str,
    inputs: Sequence[str],
    exchanges: Sequence[Exchange],
    boundaries: Sequence[int],
    *,
    shows_failure: bool,
) -> dict[str, Any]:
    replies = [read_reply(e.protocol, e.body, e.streamed) for e in exchanges]
    results: dict[str, tuple[str, bool]] = {}
    for exchange in exchanges:
        results.update(
            (cid, (text, failed))
            for cid, text, failed in tool_results(exchange.protocol, exchange.request)
        )
    turns = []
    finals: list[str] = []
    start = 0
    for text, end in zip(inputs, boundaries, strict=True):
        steps = [_step(reply) for reply in replies[start:end]]
        if not steps:
            raise UsageError(f"harness record: the agent made no model request for input {text!r}")
        turns.append({"user_input": text, "steps": steps})
        finals.append(replies[end - 1].text)
        start = end
    calls = [
        (
            call.name,
            json.dumps(call.arguments, sort_keys=True),
            *results.get(call.id, (None, False)),
        )
        for reply in replies
        for call in reply.calls
    ]
    try:
        expects = suggest(
            calls, finals[-1], inputs, earlier=finals[:-1], shows_failure=shows_failure
        )
    except ValueError as exc:
        raise UsageError(f"harness record: {exc}") from None
    return {"model_name": name, "kind": "positive", "turns": turns, "expects": expects}


def _step(reply: Reply) -> dict[str, Any]:
    tokens = {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens}
    if reply.calls:
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.calls]
        return {"response": {"type": "tool_calls", "tool_calls": calls, **tokens}}
    return {"response": {"type": "text", "content": reply.text, **tokens}}


def _without_held(value: Any) -> Any:
    """`value` with every value the harness holds (the upstream key) masked in its strings."""
    if isinstance(value, str):
        return without_held(value)
    if isinstance(value, list):
        return [_without_held(item) for item in value]
    if isinstance(value, dict):
        return {without_held(key): _without_held(item) for key, item in value.items()}
    return value


def _encodable(text: str) -> str:
    """`text`, which a fixture file can hold: no lone surrogate (a broken UTF-16 half)."""
    try:
        text.encode()
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise UsageError(
            f"harness record: the upstream answered with a lone surrogate "
            f"(\\u{ord(text[exc.start]):04x}, line {line} of the fixture), which no fixture "
            "can hold; nothing written"
        ) from None
    return text


def _write(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    write_atomic(path, text.encode())

"""Builders for fixtures and records, shared by the tests."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.messages import RecordedCall
from harness.recording import RunRecord

ECHO_TRACE: dict[str, Any] = {
    "model_name": "single-tool-echo",
    "turns": [
        {
            "user_input": "Echo hello for me",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {"id": "call_1", "name": "echo", "arguments": {"message": "hello"}}
                        ],
                        "input_tokens": 30,
                        "output_tokens": 15,
                    }
                },
                {
                    "response": {
                        "type": "text",
                        "content": "The echo tool said: hello",
                        "input_tokens": 50,
                        "output_tokens": 10,
                    }
                },
            ],
        }
    ],
    "expects": {
        "response_contains": ["hello"],
        "tools_used": ["echo"],
        "max_tool_calls": 1,
        "all_tools_succeeded": True,
    },
}


def echo_trace(**changes: Any) -> dict[str, Any]:
    """A deep copy of the valid echo trace, with top-level keys replaced."""
    trace = copy.deepcopy(ECHO_TRACE)
    trace.update(changes)
    return trace


def text_step(content: str, input_tokens: int = 0, output_tokens: int = 0) -> dict[str, Any]:
    """A scripted text step."""
    return {
        "response": {
            "type": "text",
            "content": content,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
        }
    }


def calls_step(*calls: tuple[str, Any], input_tokens: int = 0) -> dict[str, Any]:
    """A scripted tool_calls step; each call is (name, arguments)."""
    return {
        "response": {
            "type": "tool_calls",
            "tool_calls": [
                {"id": f"call_{i}", "name": name, "arguments": arguments}
                for i, (name, arguments) in enumerate(calls, 1)
            ],
            "input_tokens": input_tokens,
        }
    }


def record(
    response: str = "",
    calls: tuple[tuple[str, str, str, bool], ...] = (),
) -> RunRecord:
    """A run record from (name, arguments, result, success) tuples."""
    return RunRecord(
        final_response=response,
        tool_calls=tuple(
            RecordedCall(name=n, arguments=a, result=r, success=s) for n, a, r, s in calls
        ),
    )


TWO_ECHOES: list[dict[str, Any]] = [
    {
        "user_input": "echo a, then b",
        "steps": [
            calls_step(("echo", {"message": "a"})),
            calls_step(("echo", {"message": "b"})),
            text_step("a b"),
        ],
    }
]
"""One turn that echoes `a`, then `b`, then answers `a b`."""


def portable_regression(folder: Path) -> str:
    """A copy of `evals/regression` holding the fixtures any agent can replay.

    Those that script only `echo`: the file tools (`write_file`, `read_file`) belong to the
    reference loop, and the test agents here bring `echo` alone.
    """
    source = Path(__file__).resolve().parent.parent / "evals" / "regression"
    target = folder / "regression"
    target.mkdir()
    for path in sorted(source.glob("*.json")):
        tools = {
            call["name"]
            for turn in json.loads(path.read_text())["turns"]
            for step in turn["steps"]
            for call in step["response"].get("tool_calls", ())
        }
        if tools <= {"echo"}:
            shutil.copy(path, target / path.name)
    return str(target)


def assert_timed(calls: Sequence[Any], case_duration: float) -> None:
    """Every call has a known start and duration, neither negative, each call ending within
    its case, and the starts in call order; `calls` are `RecordedCall`s or their JSON."""
    timings = [
        (call.get("started_s"), call.get("duration_s")) if isinstance(call, dict)
        else (call.started_s, call.duration_s)
        for call in calls
    ]  # fmt: skip
    assert timings, "no call was recorded"
    known = [(start, took) for start, took in timings if start is not None and took is not None]
    assert known == timings, timings  # every start and duration known
    assert min(min(pair) for pair in known) >= 0, timings
    assert max(start + took for start, took in known) <= case_duration, timings
    starts = [start for start, _ in known]
    assert starts == sorted(starts), timings


class Forging(str):
    """A text that claims to contain, and equal, anything (and whose `str()` lies too)."""

    def __contains__(self, other: object) -> bool:
        return True

    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return str.__hash__(self)

    def __str__(self) -> str:
        return "goodbye and anything else"


def echo_case(name: str, **expects: Any) -> dict[str, Any]:
    """A case whose agent echoes `name` with one tool call, then says it."""
    call = {"id": "call_1", "name": "echo", "arguments": {"message": name}}
    return {
        "model_name": name,
        "turns": [
            {
                "user_input": f"Echo {name} for me",
                "steps": [
                    {"response": {"type": "tool_calls", "tool_calls": [call]}},
                    {"response": {"type": "text", "content": f"The echo tool said: {name}"}},
                ],
            }
        ],
        "expects": {"response_contains": [name], "tools_used": ["echo"], **expects},
    }


def replay_session(server: Any, trace: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """A session of `server` replaying `trace` (default: the echo trace), and its observer.

    The session is a context manager: enter it to open the case on the server.
    """
    import msgspec

    from harness.fixtures.format import LlmTrace
    from harness.recording import ObservedProvider, RecordingObserver
    from harness.replay.provider import ReplayProvider
    from harness.replay.session import ScriptedReplies

    observer = RecordingObserver()
    replay = ReplayProvider(msgspec.convert(ECHO_TRACE if trace is None else trace, LlmTrace))
    source = ScriptedReplies(ObservedProvider(replay, observer))
    return server.session("demo", source, observer, lambda: replay.turn), observer

"""The one recorder: boundary events in, one `RunRecord` out.

Three boundaries report tool calls, and all feed this recorder the same way: the tool
registry reports each dispatch of an in-process agent, the replay endpoint reports each
tool result a wire agent sends back, and, with tool spans on, each tool execution a wire
agent exported as an OpenTelemetry span is reported instead. `ObservedProvider` reports
each model reply the agent consumed. `RecordingObserver` normalises every call the same
way, whichever boundary saw it: arguments become compact sorted JSON, an empty result
becomes `(no output)` (a call that got no result at all keeps `None`), and the call keeps
where it was observed. A call's timing is placed on the case's own clock: the recorder is made
when its case starts, and a call's `started` reading (a `time.perf_counter()` one) becomes
seconds since then; a timing the boundary could not take stays None, and one that would be
negative (a clock the harness does not keep) is dropped, never made 0. Every text recorded
(a call's name and result, the final response) is a plain `str`: a subclass could override
`__eq__` or `__contains__` and forge a check that grading runs on it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from harness.messages import (
    NO_OUTPUT,
    NOT_SEEN,
    Event,
    ModelReplied,
    Observer,
    RecordedCall,
    ToolDispatched,
    compact_json,
    plain_str,
)

if TYPE_CHECKING:
    from harness.messages import Message, ModelProvider, ModelReply, ToolSpec

__all__ = ["FanOut", "ObservedProvider", "RecordingObserver", "RunRecord"]


class RunRecord(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The outcome of one replayed case.

    `tool_calls` is the single source of truth for calls: names, counts and overall success
    are derived from it, never stored beside it.
    """

    final_response: str = ""
    """The text that ended the last turn."""
    tool_calls: tuple[RecordedCall, ...] = ()
    """Every call, every turn, in order, failed and unknown ones included."""
    input_tokens: int = 0
    """Prompt tokens of the replies the agent consumed."""
    output_tokens: int = 0
    """Completion tokens of the replies the agent consumed."""
    requests: tuple[Any, ...] = ()
    """Each request body the agent sent to the replay endpoint (wire runs only)."""
    llm_calls: int = 0
    """How many model replies the agent consumed."""

    def untimed(self) -> RunRecord:
        """This record without its calls' timing: what two runs of one case must agree on."""
        calls = tuple(call.untimed() for call in self.tool_calls)
        return msgspec.structs.replace(self, tool_calls=calls)

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The name of each call, in order."""
        return tuple(call.name for call in self.tool_calls)

    @property
    def all_tools_succeeded(self) -> bool:
        """Whether every call succeeded (true when there were none)."""
        return all(call.success for call in self.tool_calls)


def recorded(event: ToolDispatched, origin: float) -> RecordedCall:
    """The call `event` reports, normalised as every recorded call is; its start placed after
    `origin`, the `time.perf_counter()` reading when its case started."""
    arguments = "" if event.arguments is NOT_SEEN else compact_json(event.arguments)
    started = None if event.started is None else event.started - origin
    return RecordedCall(
        name=plain_str(event.name),
        arguments=plain_str(arguments),
        result=None if event.result is None else plain_str(event.result) or NO_OUTPUT,
        success=event.success,
        observed=event.observed,
        started_s=_seconds(started),
        duration_s=_seconds(event.duration_s),
    )


def _seconds(value: float | None) -> float | None:
    """A timing as recorded: to the microsecond; None when unknown or not a time at all."""
    if value is None or not 0 <= value < float("inf"):  # NaN and the negative: no reading
        return None
    return round(value, 6)


class RecordingObserver:
    """Accumulates a run's events into a `RunRecord`."""

    def __init__(self, origin: float | None = None) -> None:
        """Record a case that started at `origin` (a `time.perf_counter()` reading; now by
        default)."""
        self._origin = time.perf_counter() if origin is None else origin
        self._calls: list[RecordedCall] = []
        self._input_tokens = 0
        self._output_tokens = 0
        self._llm_calls = 0

    def notify(self, event: Event) -> None:
        """Record a call, or add a reply's tokens to the totals."""
        if isinstance(event, ToolDispatched):
            self._calls.append(recorded(event, self._origin))
        else:
            self._input_tokens += event.input_tokens
            self._output_tokens += event.output_tokens
            self._llm_calls += 1

    def record(
        self, final_response: str, requests: tuple[Any, ...] = (), *, wire: bool = False
    ) -> RunRecord:
        """The run as recorded so far, ending with `final_response`.

        With `wire`, the endpoint (or, with tool spans on, the agent's spans) is the record of
        the calls: calls the agent also made through the in-process registry are left out, so
        none is counted twice.
        """
        calls = self._calls
        if wire:
            calls = [call for call in calls if call.observed != "dispatch"]
        return RunRecord(
            final_response=plain_str(final_response),
            tool_calls=tuple(calls),
            input_tokens=self._input_tokens,
            output_tokens=self._output_tokens,
            requests=requests,
            llm_calls=self._llm_calls,
        )


class ObservedProvider:
    """Wraps a provider so every reply it hands the agent is reported to the observer."""

    def __init__(self, provider: ModelProvider, observer: Observer) -> None:
        self._provider = provider
        self._observer = observer

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        """Ask the wrapped provider, then report the reply's usage."""
        reply = self._provider.complete(messages, tools)
        self._observer.notify(
            ModelReplied(
                input_tokens=reply.usage.input_tokens, output_tokens=reply.usage.output_tokens
            )
        )
        return reply


class FanOut:
    """Notifies the recorder, then each extension; remembers the first extension failure.

    An observer of the project's own that fails errors its case with a message naming it; it
    never crashes the suite. The recorder is notified first, so a failing observer cannot
    cost the record an event.
    """

    def __init__(self, recorder: Observer, extensions: Sequence[Observer]) -> None:
        self._recorder = recorder
        self._extensions = extensions
        self.failure: str | None = None

    def notify(self, event: Event) -> None:
        """Pass `event` on; an extension that raises is noted, not propagated."""
        self._recorder.notify(event)
        for extension in self._extensions:
            try:
                extension.notify(event)
            except Exception as exc:
                if self.failure is None:
                    name = type(extension).__name__
                    self.failure = f"observer {name} failed: {type(exc).__name__}: {exc}"

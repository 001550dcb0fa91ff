"""One case's side of the replay endpoint: where its replies come from, and what it recorded.

A `WireSession` is served under its own API key. Each request is kept (its path, the status
answered and its body, never its headers; an answered one with the turn and step it asked
for); the tool results it carries are matched by id to the calls the session served, and
recorded through the case's observer as `ToolDispatched(observed="wire")`, in the order the
calls were served.

What the wire lets the harness see of a call: its name and the arguments the *model* asked
for (the scripted ones), and the result the agent sent back. Whether the call failed is seen
only where the protocol carries it (Anthropic `is_error`).

A call that never gets a result:

- in the last reply of its turn, it is a call without result (`result: null`, not a success),
  not an error: the agent ended its turn on it, as frameworks do with a terminal output tool
  (pydantic-ai's `final_result`);
- likewise when no later request mentions its id at all: the agent sent its results as plain
  text (smolagents does), which no protocol ties to a call;
- in an earlier reply, with its id echoed in a later request but no result for it, it is an
  error of the case: the loop went on without it. So is a result under an id no call has.

A call's timing, as the wire can tell it: it starts when the reply asking for it is served, and
lasts until the request carrying its result arrives (the round trip through the agent: the
tool's run and the agent's own work around it; the calls of one reply share it). A call that
never got a result has a start and no duration; a result under an unknown id, neither.

Where the replies come from is a `ReplySource`: the scripted replay (`ScriptedReplies`) now;
a source that forwards to a real model can take its place without touching the endpoint.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from harness.errors import ReplayError
from harness.messages import NOT_SEEN, ModelProvider, ModelReply, Observer, ToolCall, ToolDispatched
from harness.replay.protocol import WireProtocol, WireResult

__all__ = ["ReplySource", "RequestGuard", "ScriptedReplies", "WireSession"]


class ReplySource(Protocol):
    """Where a session's replies come from."""

    def next_reply(self, protocol: WireProtocol, body: Mapping[str, Any]) -> ModelReply:
        """The reply to one request.

        Raises:
            ReplayError: There is no reply to give.
        """
        ...


class RequestGuard(Protocol):
    """A check of each request a session serves (a reused process's carried conversation)."""

    def check(
        self, protocol: WireProtocol, body: Mapping[str, Any], served: Collection[str]
    ) -> str | None:
        """Why the request errors its case (None: it does not); `served`: the call ids so far."""
        ...


class ScriptedReplies:
    """Replies from the case's script, one per request, in order."""

    def __init__(self, provider: ModelProvider) -> None:
        self._provider = provider

    def next_reply(self, protocol: WireProtocol, body: Mapping[str, Any]) -> ModelReply:
        """The script's next reply (the request does not choose it)."""
        return self._provider.complete((), ())


@dataclass(kw_only=True)
class _Slot:
    """One served call, and what came back for it."""

    call: ToolCall | None
    turn: int
    reply: int
    result: WireResult | None = None
    echoed: bool = False
    served: float | None = None
    """When the reply asking for the call was served (a `time.perf_counter()` reading)."""
    answered: float | None = None
    """When the request carrying its result arrived."""


@dataclass(frozen=True, kw_only=True)
class SessionRecord:
    """What a session saw, once it is closed."""

    problems: tuple[str, ...] = ()
    """Errors of the case the wire saw (an unknown result id, a result that never came)."""
    requests: tuple[Any, ...] = ()
    """Each request: `{"path", "status", "body"}`, and for one answered with a reply the
    `turn` and `step` (0-based) whose scripted reply answered it."""
    protocols: frozenset[str] = field(default_factory=frozenset)
    """The protocols the agent spoke."""


class WireSession:
    """One case's replies, requests and recorded calls."""

    def __init__(
        self,
        name: str,
        source: ReplySource,
        observer: Observer,
        turn: Callable[[], int],
        *,
        record: bool = True,
        api_key: str | None = None,
        guard: RequestGuard | None = None,
    ) -> None:
        self.name = name
        # Tool spans: with `record` off, the spans the agent exports are the record of the
        # calls, so the session reports none (its problems are still the case's).
        self._record = record
        self.api_key = api_key or f"harness-{secrets.token_hex(8)}"
        self._guard = guard
        self._source = source
        self._observer = observer
        self._turn = turn
        self._lock = threading.Lock()
        self._slots: list[_Slot] = []
        self._by_id: dict[str, _Slot] = {}
        self._last_reply: dict[int, int] = {}
        self._steps: dict[int, int] = {}
        self._replies = 0
        self._protocols: set[str] = set()
        self.requests: list[Any] = []
        self.problems: list[str] = []

    def keep(self, path: str, status: int, body: Any) -> None:
        """Keep a request that was answered without a reply (an error status)."""
        with self._lock:
            self.requests.append({"path": path, "status": status, "body": body})

    def serve(
        self, protocol: WireProtocol, path: str, body: Mapping[str, Any]
    ) -> tuple[str, ModelReply] | str:
        """Record the request and its tool results; the next reply and its id, or why there
        is none."""
        arrived = time.perf_counter()
        with self._lock:
            self._protocols.add(protocol.name)
            if self._guard is not None:
                problem = self._guard.check(protocol, body, self._by_id.keys())
                if problem is not None and problem not in self.problems:
                    self.problems.append(problem)
            self._take_results(protocol, body, arrived)
            try:
                reply = self._source.next_reply(protocol, body)
            except ReplayError as exc:
                self.problems.append(str(exc))
                self.requests.append({"path": path, "status": 400, "body": body})
                return str(exc)
            turn = self._turn()
            step = self._steps.get(turn, 0)
            self._steps[turn] = step + 1
            kept = {"path": path, "status": 200, "body": body, "turn": turn, "step": step}
            self.requests.append(kept)
            self._replies += 1
            self._last_reply[turn] = self._replies
            served = time.perf_counter()
            for call in reply.tool_calls:
                slot = _Slot(call=call, turn=turn, reply=self._replies, served=served)
                self._slots.append(slot)
                self._by_id[call.id] = slot
            return f"harness_{self._replies}", reply  # deterministic: the reply's number

    def _take_results(
        self, protocol: WireProtocol, body: Mapping[str, Any], arrived: float
    ) -> None:
        text = json.dumps(body, ensure_ascii=False)
        for slot in self._slots:
            if slot.call is not None and not slot.echoed:
                slot.echoed = json.dumps(slot.call.id, ensure_ascii=False) in text
        for result in protocol.results(body):
            found = self._by_id.get(result.call_id)
            if found is None:
                served = ", ".join(f'"{known}"' for known in self._by_id) or "none yet"
                self.problems.append(
                    f'the agent sent a tool result for id "{result.call_id}", which no scripted '
                    f"call has (scripted so far: {served})"
                )
                unknown = _Slot(call=None, turn=self._turn(), reply=self._replies, result=result)
                self._slots.append(unknown)
                self._by_id[result.call_id] = unknown
            elif found.result is None:
                found.result = result  # the history is sent again with every request
                found.answered = arrived

    @property
    def scripted(self) -> list[ToolCall]:
        """Every scripted call served so far, in order."""
        with self._lock:
            return [slot.call for slot in self._slots if slot.call is not None]

    def close(self) -> SessionRecord:
        """Report every call to the observer, in order, and what the session saw."""
        with self._lock:
            for slot in self._slots:
                self._report(slot)
            return SessionRecord(
                problems=tuple(self.problems),
                requests=tuple(self.requests),
                protocols=frozenset(self._protocols),
            )

    def _report(self, slot: _Slot) -> None:
        call, result = slot.call, slot.result
        if call is None:
            assert result is not None  # an unknown id's slot holds its result
            name = f"<unknown tool call id {result.call_id}>"
            self._notify(name, NOT_SEEN, result.text, slot, success=False)
            return
        if result is not None:
            self._notify(call.name, call.arguments, result.text, slot, success=not result.failed)
            return
        if slot.reply != self._last_reply.get(slot.turn) and slot.echoed:
            self.problems.append(
                f'scripted tool call "{call.id}" ({call.name}) never got a result from the '
                "agent, although its loop went on"
            )
        self._notify(call.name, call.arguments, None, slot, success=False)

    def _notify(
        self, name: str, arguments: Any, result: str | None, slot: _Slot, *, success: bool
    ) -> None:
        if not self._record:
            return
        served, answered = slot.served, slot.answered
        took = None if served is None or answered is None else answered - served
        self._observer.notify(
            ToolDispatched(
                name=name,
                arguments=arguments,
                result=result,
                success=success,
                observed="wire",
                started=served,
                duration_s=took,
            )
        )

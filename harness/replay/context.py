"""What an agent factory is given for one case: the `CaseContext`.

An agent is built by `factory(context)`. An in-process agent plays the case through
`context.provider` and `context.tools`; an agent that talks to a model over HTTP (an OpenAI
or Anthropic client, a framework) reads `context.base_url` (OpenAI, ending in `/v1`) or
`context.anthropic_base_url` (the host alone) and `context.api_key` instead, and the case is
then replayed over the wire. Reading any of them opens the case's session on the replay
endpoint, so in-process agents never pay for the server. With tool spans on, `context.otel`
says where the agent exports the spans its calls are recorded from.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import msgspec

from harness.replay.spans import join_spans

if TYPE_CHECKING:
    from collections.abc import Callable

    from harness.messages import ModelProvider, Observer, ToolCall
    from harness.replay.otlp import OtlpExport, SpanInbox
    from harness.replay.session import RequestGuard, SessionRecord, WireSession
    from harness.replay.spans import SpanJoin
    from harness.replay.tools import ToolRegistry
    from harness.replay.workspace import Workspace

__all__ = ["CaseContext", "Endpoint"]


class Endpoint:
    """One case's session on the replay endpoint, opened on first use and closed once."""

    def __init__(
        self,
        case_name: str,
        provider: ModelProvider,
        observer: Observer,
        turn: Callable[[], int] = lambda: 0,
        *,
        tool_spans_grace_s: float | None = None,
    ) -> None:
        self._case_name = case_name
        self._provider = provider
        self._observer = observer
        self._turn = turn
        self._lock = threading.Lock()
        self._session: WireSession | None = None
        self._close: Any = None
        self._url = ""
        # Tool spans (None: off): the case's inbox on the OTLP receiver, opened with the session.
        self._grace_s = tool_spans_grace_s
        self._inbox: SpanInbox | None = None
        self._export: OtlpExport | None = None
        self.span_join: SpanJoin | None = None
        """With tool spans on, the calls as the spans recorded them (set by `close`)."""

    @property
    def observer(self) -> Observer:
        """Who is told of the case's events (the recorder first)."""
        return self._observer

    def turn(self) -> int:
        """The index of the turn being played."""
        return self._turn()

    @property
    def opened(self) -> bool:
        """Whether the agent asked for the endpoint, so the case is played over the wire."""
        return self._session is not None

    def open(
        self,
        *,
        api_key: str | None = None,
        span_token: str | None = None,
        guard: RequestGuard | None = None,
    ) -> WireSession:
        """The case's session, opened (and the shared server started) on the first call.

        A reused agent process opens it under the key and span token it keeps for its life,
        with a `guard` on what its requests carry; otherwise both are new for the case.
        """
        with self._lock:
            if self._session is None:
                # Deferred: the HTTP server's imports would slow the start of every run,
                # and only wire runs use them.
                from harness.replay.endpoint import shared_server
                from harness.replay.session import ScriptedReplies

                server = shared_server()
                spans = self._grace_s is not None
                source = ScriptedReplies(self._provider)
                manager = server.session(
                    self._case_name,
                    source,
                    self._observer,
                    self._turn,
                    record=not spans,
                    api_key=api_key,
                    guard=guard,
                )
                self._session = manager.__enter__()
                self._close = manager.__exit__
                self._url = server.anthropic_url
                if spans:
                    # Deferred: only tool-span runs start the OTLP receiver.
                    from harness.replay.otlp import OtlpExport, shared_receiver

                    receiver = shared_receiver()
                    self._inbox = receiver.open(span_token)
                    self._export = OtlpExport(receiver, self._inbox)
            return self._session

    @property
    def otel(self) -> OtlpExport | None:
        """Where the agent exports its spans, with tool spans on (None when off)."""
        self.open()
        return self._export

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (ending in `/v1`) of the open session."""
        return f"{self.anthropic_url}/v1"

    @property
    def anthropic_url(self) -> str:
        """The Anthropic-style base URL (the host alone) of the open session."""
        self.open()
        return self._url

    def close(self) -> SessionRecord | None:
        """Stop serving the case: what the wire saw (None when the agent never asked for it)."""
        with self._lock:
            session, self._session = self._session, None
            close, self._close = self._close, None
        if session is None:
            return None
        close(None, None, None)
        scripted = session.scripted
        record = session.close()
        if self._inbox is not None:
            from dataclasses import replace  # deferred: tool-span runs only

            spans = self._join_spans(scripted)
            record = replace(record, problems=(*record.problems, *spans))
        return record

    def _join_spans(self, scripted: list[ToolCall]) -> tuple[str, ...]:
        """Record the calls from the case's spans; what did not add up."""
        from harness.replay.otlp import shared_receiver  # deferred: tool-span runs only

        assert self._inbox is not None  # opened with the session
        spans = self._inbox.wait(len(scripted), self._grace_s or 0.0)
        shared_receiver().close(self._inbox)
        self.span_join = join_spans(scripted, spans)
        for event in self.span_join.events:
            self._observer.notify(event)
        return self.span_join.problems


class CaseContext(msgspec.Struct, frozen=True, kw_only=True, eq=False):
    """Everything one case offers the agent built for it."""

    case_name: str
    """The case's name (the fixture's `model_name`)."""
    provider: ModelProvider
    """The scripted model: each `complete` returns the case's next reply."""
    tools: ToolRegistry
    """The case's tools; every dispatch through them is recorded."""
    workspace: Workspace
    """A private temp folder for the case (created when its `path` is first read)."""
    endpoint: Endpoint
    """The case's session on the replay endpoint; prefer `base_url` and `api_key`."""

    @property
    def base_url(self) -> str:
        """The base URL an OpenAI client takes (ends in `/v1`); opens the case's session."""
        return self.endpoint.url

    @property
    def anthropic_base_url(self) -> str:
        """The base URL an Anthropic client takes (the host alone); opens the case's session."""
        return self.endpoint.anthropic_url

    @property
    def api_key(self) -> str:
        """The key that routes requests to this case; opens the case's session."""
        return self.endpoint.open().api_key

    @property
    def otel(self) -> OtlpExport | None:
        """With tool spans on, where to export spans (`otel.traces_endpoint`, `otel.headers`).

        None when tool spans are off. Reading it opens the case's session, as `base_url` does.
        """
        return self.endpoint.otel

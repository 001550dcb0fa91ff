"""The request types of each wire protocol, as the official SDKs declare them.

Each is loose where the protocol is open (unknown keys are the provider's to add, and are
ignored) and strict where it defines a type: a required key that is missing, or a key of
the wrong type, is refused with a 400 before a scripted reply is used up. The fields follow
`openai.types.chat.CompletionCreateParams`, `openai.types.responses.ResponseCreateParams`
and `anthropic.types.MessageCreateParams`; only the keys a replay reads, and the scalar
ones whose type is plain, are declared.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, Any, Literal

import msgspec

__all__ = ["request_problem"]

_Object = dict[str, Any]
_Parts = list[_Object]
_Count = Annotated[int, msgspec.Meta(ge=0, le=2**31)]


class _Sampling(msgspec.Struct, kw_only=True):
    """Keys the three protocols share."""

    stream: bool | None = None
    temperature: float | None = None
    top_p: float | None = None
    metadata: _Object | None = None


class _FunctionDefinition(msgspec.Struct, kw_only=True):
    """A function tool: the `function` of a Chat tool, or a Responses tool itself."""

    name: str
    description: str | None = None
    parameters: _Object | None = None
    strict: bool | None = None


class _FunctionCall(msgspec.Struct, kw_only=True):
    name: str
    arguments: str


class _ChatTool(msgspec.Struct, kw_only=True):
    type: str
    function: _FunctionDefinition | None = None  # absent from a custom tool


class _ChatToolCall(msgspec.Struct, kw_only=True):
    id: str
    type: str | None = None
    function: _FunctionCall | None = None  # absent from a custom tool's call


class _ChatMessage(msgspec.Struct, kw_only=True):
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | _Parts | None = None
    name: str | None = None
    tool_call_id: str | None = None
    tool_calls: list[_ChatToolCall] | None = None


class _ChatRequest(_Sampling, kw_only=True):
    model: str
    messages: list[_ChatMessage]
    tools: list[_ChatTool] | None = None
    n: _Count | None = None
    max_tokens: _Count | None = None
    max_completion_tokens: _Count | None = None
    tool_choice: str | _Object | None = None
    parallel_tool_calls: bool | None = None
    stop: str | list[str] | None = None
    seed: int | None = None
    logprobs: bool | None = None
    top_logprobs: _Count | None = None
    user: str | None = None


class _ResponsesItem(msgspec.Struct, kw_only=True):
    type: str | None = None
    role: Literal["system", "developer", "user", "assistant"] | None = None
    content: str | _Parts | None = None
    call_id: str | None = None
    name: str | None = None
    arguments: str | None = None
    output: str | _Parts | _Object | None = None  # an object: a computer call's screenshot


class _ResponsesTool(msgspec.Struct, kw_only=True):
    type: str
    name: str | None = None  # a function tool's; built-in tools have none
    description: str | None = None
    parameters: _Object | None = None
    strict: bool | None = None


class _ResponsesRequest(_Sampling, kw_only=True):
    input: str | list[_ResponsesItem]
    tools: list[_ResponsesTool] | None = None
    model: str | None = None
    instructions: str | None = None
    max_output_tokens: _Count | None = None
    tool_choice: str | _Object | None = None
    parallel_tool_calls: bool | None = None
    include: list[str] | None = None
    store: bool | None = None
    user: str | None = None


class _AnthropicBlock(msgspec.Struct, kw_only=True):
    type: str
    text: str | None = None
    id: str | None = None
    name: str | None = None
    input: _Object | None = None
    tool_use_id: str | None = None
    content: str | _Parts | _Object | None = None  # an object: a server tool's result
    is_error: bool | None = None


class _AnthropicMessage(msgspec.Struct, kw_only=True):
    role: Literal["user", "assistant"]
    content: str | list[_AnthropicBlock]


class _AnthropicTool(msgspec.Struct, kw_only=True):
    name: str  # every tool has one, server tools too
    type: str | None = None
    description: str | None = None
    input_schema: _Object | None = None


class _AnthropicRequest(_Sampling, kw_only=True):
    model: str
    max_tokens: Annotated[int, msgspec.Meta(ge=1, le=2**31)]
    messages: list[_AnthropicMessage]
    tools: list[_AnthropicTool] | None = None
    system: str | _Parts | None = None
    top_k: _Count | None = None
    stop_sequences: list[str] | None = None
    tool_choice: _Object | None = None


_TYPES: dict[str, type[msgspec.Struct]] = {
    "chat_completions": _ChatRequest,
    "responses": _ResponsesRequest,
    "anthropic": _AnthropicRequest,
}


def request_problem(protocol: str, body: Mapping[str, Any]) -> str | None:
    """Why `body` is not a request of `protocol` (its SDK's types), or None."""
    try:
        request = msgspec.convert(body, _TYPES[protocol])
    except msgspec.ValidationError as exc:
        return f"invalid request: {exc}"
    return _missing_id(request)


def _missing_id(request: msgspec.Struct) -> str | None:
    """A tool result without the id that ties it to its call (each protocol requires it)."""
    for where, needs in _unmatched(request):
        return f"invalid request: {needs} - at `{where}`"
    return None


def _unmatched(request: msgspec.Struct) -> Iterator[tuple[str, str]]:
    if isinstance(request, _ChatRequest):
        for i, message in enumerate(request.messages):
            if message.role == "tool" and message.tool_call_id is None:
                yield f"$.messages[{i}]", "a tool message needs `tool_call_id`"
    elif isinstance(request, _ResponsesRequest) and isinstance(request.input, list):
        for i, item in enumerate(request.input):
            if item.type in ("function_call", "function_call_output") and item.call_id is None:
                yield f"$.input[{i}]", f"a {item.type} item needs `call_id`"
    elif isinstance(request, _AnthropicRequest):
        for i, turn in enumerate(request.messages):
            blocks = turn.content if isinstance(turn.content, list) else []
            for j, block in enumerate(blocks):
                if block.type == "tool_result" and block.tool_use_id is None:
                    yield f"$.messages[{i}].content[{j}]", "a tool_result block needs `tool_use_id`"

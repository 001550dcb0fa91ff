"""Request types per protocol: what each official SDK sends passes; what none sends is named."""

from __future__ import annotations

from typing import Any

import pytest

from harness.replay.wire_types import request_problem

USER = {"role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("protocol", "body"),
    [
        ("chat_completions", {"model": "m", "messages": [USER], "temperature": 0, "x-new": 1}),
        (
            "chat_completions",
            {"model": "m", "messages": [{"role": "tool", "tool_call_id": "c", "content": "r"}]},
        ),
        ("responses", {"input": "hi"}),
        (
            "responses",
            {
                "model": "m",
                "input": [USER, {"type": "function_call_output", "call_id": "c", "output": "r"}],
            },
        ),
        (
            "responses",
            {
                "input": [
                    {
                        "type": "computer_call_output",
                        "call_id": "c",
                        "output": {"type": "computer_screenshot"},
                    }
                ]
            },
        ),
        (
            "anthropic",
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [USER],
                "system": [{"type": "text", "text": "s"}],
            },
        ),
        (
            "anthropic",
            {
                "model": "m",
                "max_tokens": 5,
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "web_search_tool_result",
                                "tool_use_id": "t",
                                "content": {"type": "error"},
                            }
                        ],
                    }
                ],
            },
        ),
    ],
    ids=[
        "chat",
        "chat-tool",
        "responses-text",
        "responses-items",
        "responses-computer",
        "anthropic",
        "anthropic-server-tool",
    ],
)
def test_what_an_sdk_sends_passes(protocol: str, body: dict[str, Any]) -> None:
    """Unknown keys are the provider's to add; declared ones of the right type pass."""
    assert request_problem(protocol, body) is None


TOOL_TYPES = [
    (
        "chat_completions",
        {"tools": [{"type": "function", "function": {"name": 5}}]},
        "$.tools[0].function.name",
    ),
    (
        "chat_completions",
        {
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c", "type": "function", "function": {"name": "f", "arguments": {}}}
                    ],
                }
            ]
        },
        "$.messages[0].tool_calls[0].function.arguments",
    ),
    (
        "responses",
        {"tools": [{"type": "function", "name": "f", "parameters": "x"}]},
        "$.tools[0].parameters",
    ),
    ("anthropic", {"tools": [{"description": "no name"}]}, "$.tools[0]"),
]
BASES: dict[str, dict[str, Any]] = {
    "chat_completions": {"model": "m", "messages": [USER]},
    "responses": {"input": "hi"},
    "anthropic": {"model": "m", "max_tokens": 5, "messages": [USER]},
}


@pytest.mark.parametrize(
    ("protocol", "extra", "problem"),
    TOOL_TYPES,
    ids=["chat-tool-name", "chat-call-arguments", "responses-parameters", "anthropic-no-name"],
)
def test_tools_and_calls_of_the_wrong_type_are_named(
    protocol: str, extra: dict[str, Any], problem: str
) -> None:
    """Tool definitions and scripted calls sent back are typed as the SDKs type them."""
    found = request_problem(protocol, {**BASES[protocol], **extra})
    assert found is not None
    assert problem in found


@pytest.mark.parametrize("protocol", list(BASES))
def test_tools_as_the_sdks_send_them_pass(protocol: str) -> None:
    """A function tool in each protocol's own shape, and a built-in tool, pass."""
    tools = {
        "chat_completions": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        "responses": [{"type": "function", "name": "f", "parameters": {}}, {"type": "web_search"}],
        "anthropic": [
            {"name": "f", "input_schema": {}},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
    }[protocol]
    assert request_problem(protocol, {**BASES[protocol], "tools": tools}) is None


@pytest.mark.parametrize(
    ("protocol", "body", "problem"),
    [
        ("chat_completions", {"messages": [USER]}, "missing required field `model`"),
        (
            "chat_completions",
            {"model": "m", "messages": [{"role": "robot", "content": "x"}]},
            "$.messages[0].role",
        ),
        ("chat_completions", {"model": "m", "messages": [USER], "stream": "yes"}, "$.stream"),
        (
            "responses",
            {"input": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
            "$.input[0]",
        ),
        ("responses", {"input": "hi", "max_output_tokens": -1}, "$.max_output_tokens"),
        ("anthropic", {"model": "m", "max_tokens": 0, "messages": []}, "$.max_tokens"),
        (
            "anthropic",
            {"model": "m", "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]},
            "$.messages[0].role",
        ),
    ],
    ids=[
        "chat-model",
        "chat-role",
        "chat-stream",
        "responses-call-id",
        "responses-negative",
        "anthropic-zero",
        "anthropic-role",
    ],
)
def test_what_no_sdk_sends_is_named(protocol: str, body: dict[str, Any], problem: str) -> None:
    """The reason names the key and its JSON path."""
    found = request_problem(protocol, body)
    assert found is not None
    assert found.startswith("invalid request: ")
    assert problem in found

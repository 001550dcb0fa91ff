"""The reference loop's final text: thinking and end-of-message markers removed, trimmed."""

from __future__ import annotations

import pytest

from harness.errors import AgentError
from harness.messages import ModelReply
from harness.recording import RecordingObserver
from harness.replay.agent import ReferenceAgent
from harness.replay.final_text import final_text
from harness.replay.tools import ToolRegistry, default_tools


@pytest.mark.parametrize(
    ("raw", "final"),
    [
        ("<think>plan it</think>The answer is 4.", "The answer is 4."),
        ("A <think>x</think>B<think>y</think> C", "A B C"),
        ("Visible.<think>never closed, dropped", "Visible."),
        ("Done.<eom>", "Done."),
        ("Done. <|eom|>\n", "Done."),
        ("Done.<eom><|eom|>", "Done."),
        ("  padded  ", "padded"),
        ("<eom> in the middle<eom>", "<eom> in the middle"),
        ("</think> alone stays", "</think> alone stays"),
    ],
)
def test_final_text_is_post_processed(raw: str, final: str) -> None:
    """Each rule of the post-processing, alone and combined."""
    assert final_text(raw) == final


class _Scripted:
    def __init__(self, text: str) -> None:
        self.text = text

    def complete(self, messages: object, tools: object) -> ModelReply:
        return ModelReply(text=self.text)


def test_reference_loop_returns_the_processed_text() -> None:
    """The turn's text is what is left after post-processing."""
    tools = ToolRegistry(default_tools(), RecordingObserver())
    agent = ReferenceAgent(_Scripted("<think>hm</think> Hello.<eom>"), tools)
    assert agent.turn("hi") == "Hello."


def test_a_reply_that_is_only_thinking_is_an_empty_reply() -> None:
    """Empty after stripping means no final text."""
    tools = ToolRegistry(default_tools(), RecordingObserver())
    agent = ReferenceAgent(_Scripted("<think>only thoughts</think><eom>"), tools)
    with pytest.raises(AgentError, match="without final text"):
        agent.turn("hi")

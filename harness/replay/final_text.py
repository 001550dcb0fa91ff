"""What of a model's final reply counts as the turn's text, as the reference loop reads it.

Reasoning models wrap their thinking in `<think>…</think>` and some end a message with an
end-of-message marker. Neither is the answer: every `<think>…</think>` block is removed, an
unclosed `<think>` drops everything after it, trailing `<eom>` / `<|eom|>` markers are removed,
and the rest is trimmed. A reply that is empty after this is an empty reply.
"""

from __future__ import annotations

__all__ = ["final_text"]

_OPEN, _CLOSE = "<think>", "</think>"
_MARKERS = ("<eom>", "<|eom|>")


def final_text(text: str) -> str:
    """`text` without thinking blocks and trailing end-of-message markers, trimmed."""
    if _OPEN in text:
        text = _without_thinking(text)
    text = text.strip()
    while text.endswith(_MARKERS):
        for marker in _MARKERS:
            text = text.removesuffix(marker)
        text = text.rstrip()
    return text.strip()


def _without_thinking(text: str) -> str:
    kept: list[str] = []
    while True:
        start = text.find(_OPEN)
        if start < 0:
            kept.append(text)
            break
        kept.append(text[:start])
        end = text.find(_CLOSE, start + len(_OPEN))
        if end < 0:
            break  # an unclosed block runs to the end
        text = text[end + len(_CLOSE) :]
    return "".join(kept)

"""Synthetic suites for the bench: realistic fixtures, generated from a seed.

Sizes and shapes follow the fixtures teams write: a few hundred bytes to a couple of KB,
placeholder identities only.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

__all__ = ["generate_suite"]


def generate_suite(folder: str, count: int, seed: int = 7, mix: str = "mix") -> int:
    """Write `count` fixtures into `folder`, of the given mix.

    `mix`: 40 % text, 40 % one tool call, 20 % two-turn tool loops; `text`: simple text cases;
    `defaults`: the same text cases, each writing one default out (`"tools_used": []`), as
    recorders that write every field do; `echo`: one echo tool call and an answer each.

    Every tool case carries a `response_matches` pattern of its own.

    Returns:
        The total size of the files, in bytes.
    """
    rng = random.Random(seed)
    os.makedirs(folder, exist_ok=True)
    total = 0
    for index in range(count):
        kind = index % 5 if mix == "mix" else (2 if mix == "echo" else 0)
        trace = (
            _text_case(index, rng) if kind < 2 else _tool_case(index, rng, turns=1 + (kind == 4))
        )
        if mix == "defaults":
            trace["expects"]["tools_used"] = []
        data = json.dumps(trace, indent=2, ensure_ascii=False).encode()
        with open(os.path.join(folder, f"case_{index:06d}.json"), "wb") as file:
            file.write(data)
        total += len(data)
    return total


def _words(rng: random.Random, count: int) -> str:
    vocabulary = ("alpha", "bravo", "delta", "echo", "gamma", "kilo", "lima", "nova", "sierra")
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def _text_case(index: int, rng: random.Random) -> dict[str, Any]:
    answer = f"Hello harness_user, here is answer {index}: {_words(rng, 8)}."
    return {
        "model_name": f"text-case-{index}",
        "turns": [
            {
                "user_input": f"Question {index}: {_words(rng, 6)}?",
                "steps": [
                    {
                        "response": {
                            "type": "text",
                            "content": answer,
                            "input_tokens": 20,
                            "output_tokens": 12,
                        }
                    }
                ],
            }
        ],
        "expects": {
            "response_contains": [f"answer {index}"],
            "response_not_contains": ["error"],
            "exact_tool_calls": 0,
        },
    }


def _tool_case(index: int, rng: random.Random, turns: int) -> dict[str, Any]:
    scripted = []
    for turn in range(turns):
        message = f"{_words(rng, 3)} {index}-{turn}"
        call = {"id": f"call_{turn}", "name": "echo", "arguments": {"message": message}}
        scripted.append(
            {
                "user_input": f"Please echo: {message}",
                "steps": [
                    {
                        "response": {
                            "type": "tool_calls",
                            "tool_calls": [call],
                            "input_tokens": 30,
                            "output_tokens": 15,
                        }
                    },
                    {
                        "response": {
                            "type": "text",
                            "content": f"The echo tool said: {message}",
                            "input_tokens": 50,
                            "output_tokens": 10,
                        }
                    },
                ],
            }
        )
    last = f"{index}-{turns - 1}"
    return {
        "model_name": f"tool-case-{index}",
        "turns": scripted,
        "expects": {
            "exact_tool_calls": turns,
            "tool_arguments_contain": [{"tool": "echo", "needle": last, "call_index": turns - 1}],
            "tool_results_contain": [{"tool": "echo", "needle": last, "call_index": turns - 1}],
            "all_tools_succeeded": True,
            "response_matches": [f"said: .* {last}$"],
        },
    }

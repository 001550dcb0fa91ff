"""A suite's cases through pydantic-evals, in a process of its own:
`python peers.py SUITE [--path DIR]`, DIR holding the peer's packages when they are installed
apart from the harness.

Each fixture (one user input, scripted tool calls and a text answer) becomes a pydantic-evals
`Case` whose agent is a pydantic-ai `FunctionModel` playing the fixture's steps in order, with
an `echo` tool; its evaluator checks that the answer contains the fixture's
`response_contains` needles, or, for the synthetic tool cases, the needle of its
`tool_results_contain`. The cases run serially, as `harness run --jobs 1` runs them, with no
progress bar. Exit status 0 when every case passed, 1 otherwise.

The bench runs this file by its path, so that the bench's own folder, not the project's
checkout, is first on `sys.path`: it imports nothing of harness or of the bench.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "scripted_cases"]


def scripted_cases(folder: str) -> list[tuple[str, str, list[dict[str, Any]], list[str]]]:
    """Each fixture of `folder`, in name order: its name, user input, steps and needles."""
    out = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as file:
            fixture = json.load(file)
        [turn] = fixture["turns"]
        expects = fixture["expects"]
        needles = list(expects.get("response_contains", ()))
        needles += [item["needle"] for item in expects.get("tool_results_contain", ())]
        steps = [step["response"] for step in turn["steps"]]
        out.append((fixture["model_name"], turn["user_input"], steps, needles))
    return out


def _reply(response: dict[str, Any], messages: Any) -> Any:
    if response["type"] == "text":
        return messages.ModelResponse(parts=[messages.TextPart(response["content"])])
    return messages.ModelResponse(
        parts=[
            messages.ToolCallPart(
                tool_name=call["name"], args=call["arguments"], tool_call_id=call["id"]
            )
            for call in response["tool_calls"]
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Evaluate the suite's cases with pydantic-evals; 0 when every case passed."""
    parser = argparse.ArgumentParser(prog="peers.py", description=__doc__)
    parser.add_argument("suite")
    parser.add_argument("--path", help="a folder of the peer's packages, searched first")
    args = parser.parse_args(argv)
    if args.path:
        sys.path.insert(0, args.path)
    cases = scripted_cases(args.suite)
    # Imported by name: the peers are installed for the bench only, maybe apart.
    pydantic_ai = importlib.import_module("pydantic_ai")
    messages = importlib.import_module("pydantic_ai.messages")
    FunctionModel = importlib.import_module("pydantic_ai.models.function").FunctionModel
    evals = importlib.import_module("pydantic_evals")
    Contains = importlib.import_module("pydantic_evals.evaluators").Contains

    scripts = {user_input: steps for _, user_input, steps, _ in cases}

    def model(history: list[Any], info: Any) -> Any:
        prompt = history[0].parts[-1].content
        replied = sum(isinstance(message, messages.ModelResponse) for message in history)
        return _reply(scripts[prompt][replied], messages)

    agent = pydantic_ai.Agent(FunctionModel(model))

    def echo(message: str) -> str:
        """Echo the message back."""
        return message

    agent.tool_plain(echo)

    async def task(inputs: str) -> str:
        return str((await agent.run(inputs)).output)

    dataset = evals.Dataset(
        name="bench",
        cases=[
            evals.Case(
                name=name,
                inputs=user_input,
                evaluators=tuple(Contains(value=needle) for needle in needles),
            )
            for name, user_input, _, needles in cases
        ],
    )
    report = dataset.evaluate_sync(task, max_concurrency=1, progress=False)
    passed = sum(
        bool(case.assertions) and all(result.value for result in case.assertions.values())
        for case in report.cases
    )
    if passed != len(cases) or report.failures:
        print(f"pydantic-evals: {passed} of {len(cases)} cases passed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

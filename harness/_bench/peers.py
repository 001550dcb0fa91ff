"""`nox -s bench-peers`: the same one-tool echo case through the harness and two peers.

The case: the user asks to echo a message; the scripted model calls the `echo` tool, then
answers with what it said; the check is that the answer contains the message. It runs as N
fixtures through `harness run`, as N cases of a pydantic-evals `Dataset` whose agent is a
pydantic-ai `FunctionModel`, and as N samples of an Inspect AI task on its `mockllm` model,
each in a process of its own (started from a small spawner, so peak RSS is the run's own),
serially as the harness runs them, after one untimed warm-up run. Each is run with 1 and with
N cases: the per-case cost is the difference over N - 1, so start-up and imports are set
apart (for the harness it is within the noise of its start-up unless N is large). Printed:
the N-case run's wall time, the per-case cost, each peer's ratio to the harness, start-up and
peak RSS. Not part of `tests` or CI: the peers are installed in this session's own
environment only.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

__all__ = ["main"]

MESSAGE = "hello harness_user"
PEERS = ("harness", "pydantic-evals", "inspect-ai")


def _pydantic_evals(count: int) -> int:
    ai = importlib.import_module("pydantic_ai")
    function = importlib.import_module("pydantic_ai.models.function")
    messages = importlib.import_module("pydantic_ai.messages")
    evals = importlib.import_module("pydantic_evals")
    evaluators = importlib.import_module("pydantic_evals.evaluators")

    def model(history: list[Any], info: Any) -> Any:
        for part in history[-1].parts:
            if isinstance(part, messages.ToolReturnPart):
                return messages.ModelResponse(
                    parts=[messages.TextPart(f"The echo tool said: {part.content}")]
                )
        return messages.ModelResponse(
            parts=[messages.ToolCallPart(tool_name="echo", args={"message": MESSAGE})]
        )

    agent = ai.Agent(function.FunctionModel(model))

    def echo(message: str) -> str:
        """Echo the message back."""
        return message

    agent.tool_plain(echo)

    async def task(inputs: str) -> str:
        result = await agent.run(inputs)
        return str(result.output)

    dataset = evals.Dataset(
        name="echo",
        cases=[
            evals.Case(name=f"echo-{i}", inputs=f"Please echo: {MESSAGE}") for i in range(count)
        ],
        evaluators=[evaluators.Contains(value=MESSAGE)],
    )
    report = dataset.evaluate_sync(task, max_concurrency=1)
    passed = sum(all(r.value for r in case.assertions.values()) for case in report.cases)
    return 0 if passed == count else 1


def _inspect_ai(count: int) -> int:
    inspect = importlib.import_module("inspect_ai")
    dataset = importlib.import_module("inspect_ai.dataset")
    model = importlib.import_module("inspect_ai.model")
    scorer = importlib.import_module("inspect_ai.scorer")
    solver = importlib.import_module("inspect_ai.solver")
    tool = importlib.import_module("inspect_ai.tool")

    def echo() -> Any:
        async def execute(message: str) -> str:
            """Echo the message back.

            Args:
                message: What to echo.
            """
            return message

        return execute

    echo = tool.tool(echo)

    def outputs() -> Any:
        # With usage given, mockllm need not count tokens (which fetches an encoding).
        usage = model.ModelUsage(input_tokens=30, output_tokens=10, total_tokens=40)
        for _ in range(count):
            call = model.ModelOutput.for_tool_call(
                model="mockllm/model", tool_name="echo", tool_arguments={"message": MESSAGE}
            )
            answer = model.ModelOutput.from_content(
                model="mockllm/model", content=f"The echo tool said: {MESSAGE}"
            )
            call.usage = answer.usage = usage
            yield call
            yield answer

    samples = [
        dataset.Sample(input=f"Please echo: {MESSAGE}", target=MESSAGE) for _ in range(count)
    ]
    task = inspect.Task(
        dataset=samples,
        solver=[solver.use_tools(echo()), solver.generate()],
        scorer=scorer.includes(),
    )
    with tempfile.TemporaryDirectory() as logs:
        [log] = inspect.eval(
            task,
            model=model.get_model("mockllm/model", custom_outputs=outputs()),
            display="none",
            log_dir=logs,
            max_samples=1,
        )
    if log.status != "success" or log.results is None:
        print(f"inspect-ai: {log.status}: {getattr(log.error, 'message', '')}", file=sys.stderr)
        return 1
    accuracy = log.results.scores[0].metrics["accuracy"].value
    return 0 if log.status == "success" and accuracy == 1.0 else 1


def _fixture(index: int) -> dict[str, Any]:
    call = {"id": "call_0", "name": "echo", "arguments": {"message": MESSAGE}}
    return {
        "model_name": f"echo-{index}",
        "turns": [
            {
                "user_input": f"Please echo: {MESSAGE}",
                "steps": [
                    {"response": {"type": "tool_calls", "tool_calls": [call]}},
                    {"response": {"type": "text", "content": f"The echo tool said: {MESSAGE}"}},
                ],
            }
        ],
        "expects": {"response_contains": [MESSAGE], "tools_used": ["echo"]},
    }


def _suite(folder: str, count: int) -> str:
    import json

    os.makedirs(folder, exist_ok=True)
    for index in range(count):
        path = os.path.join(folder, f"echo_{index:06d}.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump(_fixture(index), file)
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison (or, with --run, one peer's N cases in this process)."""
    parser = argparse.ArgumentParser(prog="python -m harness._bench.peers", description=__doc__)
    parser.add_argument("--cases", type=int, default=200, help="cases per run")
    parser.add_argument("--repeat", type=int, default=3, help="repeats per figure (median)")
    parser.add_argument("--run", choices=PEERS[1:], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run == "pydantic-evals":
        return _pydantic_evals(args.cases)
    if args.run == "inspect-ai":
        return _inspect_ai(args.cases)
    return _compare(args.cases, args.repeat)


def _compare(count: int, repeat: int) -> int:
    from tabulate import tabulate

    from harness._bench.spawner import Spawner

    with tempfile.TemporaryDirectory(prefix="harness-peers-") as scratch:
        spawner = Spawner(cwd=scratch)
        try:
            rows = {}
            for peer in PEERS:
                figures = []
                for size in (1, count):
                    if peer == "harness":
                        suite = _suite(os.path.join(scratch, f"suite-{size}"), size)
                        argv = [sys.executable, "-m", "harness", "run", "--suite", suite]
                    else:
                        argv = [sys.executable, "-m", "harness._bench.peers", "--run", peer]
                        argv += ["--cases", str(size)]
                    spawner.run(argv, ok=(0,))  # warm-up: caches, bytecode; not timed
                    runs = [spawner.run(argv, ok=(0,)) for _ in range(repeat)]
                    figures.append(
                        (sorted(t for t, _ in runs)[len(runs) // 2], max(r for _, r in runs))
                    )
                (one, _), (many, rss) = figures
                rows[peer] = ((many - one) / (count - 1), one, many, rss / 1024)
        finally:
            spawner.close()
    base, base_wall = rows["harness"][0], rows["harness"][2]
    print(f"one-tool echo case, {count} cases, serial (python {sys.version.split()[0]})")
    print(
        tabulate(
            [
                (
                    peer,
                    f"{wall:,.2f}",
                    f"{wall / base_wall:,.1f}x",
                    f"{per_case * 1e6:,.0f}",
                    f"{per_case / base:,.0f}x" if base > 0 else "-",
                    f"{start * 1e3:,.0f}",
                    f"{rss:,.0f}",
                )
                for peer, (per_case, start, wall, rss) in rows.items()
            ],
            headers=[
                "",
                f"{count}-case run s",
                "vs harness",
                "us/case",
                "vs harness",
                "1-case run ms",
                "peak RSS MiB",
            ],
            tablefmt="simple",
            disable_numparse=True,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

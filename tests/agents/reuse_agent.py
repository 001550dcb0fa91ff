"""A stdlib tool-calling agent for `agent_command`, speaking the protocol through `agent_io`.

It calls Chat Completions at OPENAI_BASE_URL with its `echo` tool, writes each answer to
`answer.txt` in the case's workspace, and behaves as its arguments say:
`forget` keeps one conversation across cases (the leak `carryover` must catch);
`crash=NAME` / `hang=NAME` exits / hangs in case NAME; `sleep=S` sleeps S seconds at start;
`pids=DIR` notes its process id in DIR.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
from typing import Any

from harness.agent_io import cases

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "echo",
            "description": "Echo back the given message.",
            "parameters": {"type": "object", "properties": {"message": {"type": "string"}}},
        },
    }
]
OPTIONS = dict(arg.partition("=")[::2] for arg in sys.argv[1:])


def complete(messages: list[dict[str, Any]]) -> dict[str, Any]:
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps({"model": "m", "messages": messages, "tools": TOOLS}).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}",
        },
    )
    with urllib.request.urlopen(request) as response:
        message: dict[str, Any] = json.load(response)["choices"][0]["message"]
    return message


def turn(messages: list[dict[str, Any]], user_input: str) -> str:
    messages.append({"role": "user", "content": user_input})
    while True:
        message = complete(messages)
        messages.append(message)
        if not message.get("tool_calls"):
            return str(message.get("content") or "")
        for call in message["tool_calls"]:
            text = json.loads(call["function"]["arguments"]).get("message", "")
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})


def main() -> None:
    time.sleep(float(OPTIONS.get("sleep") or 0))
    if "pids" in OPTIONS:
        with open(os.path.join(OPTIONS["pids"], f"{os.getpid()}.pid"), "w") as file:
            file.write(str(os.getpid()))
    kept: list[dict[str, Any]] = []
    for case in cases():
        messages = kept if "forget" in OPTIONS else []
        print(f"playing {case.name}")  # to stderr: agent_io keeps stdout for the protocol
        for user_input in case:
            if OPTIONS.get("crash") == case.name:
                os._exit(3)
            if OPTIONS.get("hang") == case.name:
                time.sleep(600)
            answer = turn(messages, user_input)
            if case.workspace:
                with open(os.path.join(case.workspace, "answer.txt"), "w") as file:
                    file.write(answer)
            case.respond(answer)


main()

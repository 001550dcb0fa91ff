"""`harness init`: the files that turn a repository into a gated project.

Three suites with an example each, the fixture schema, a `[tool.harness]` table, nox sessions
and a CI pipeline. An existing file is never overwritten without `force`, and the user's
`pyproject.toml` is only ever appended to, so its tables, formatting and comments stay as they
were; running it twice changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from typing import Any, Literal

from harness.authoring.pin import Pin, installed_pin
from harness.errors import ConfigError, UsageError
from harness.fixtures.format import LlmTrace
from harness.fixtures.json_schema import schema_text
from harness.reports.artifact import write_atomic

__all__ = [
    "CI_CHOICES",
    "NOXFILE_MARKER",
    "Outcome",
    "Scaffold",
    "init_project",
    "noxfile_block",
]

CI_CHOICES = ("github", "gitlab")
GITHUB_WORKFLOW = ".github/workflows/harness.yml"
GITLAB_INCLUDE = "harness.gitlab-ci.yml"
_TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
_PLACEHOLDER = "@REQUIREMENT@"
_CALLABLE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_GREETINGS = {
    "regression": ("Hello! I'm harness_user.", "Hello harness_user! How can I help you today?"),
    "capability": ("Good morning!", "Good morning, harness_user! What shall we work on?"),
    "live": ("Say hello to harness_user.", "Hello, harness_user! Nice to meet you."),
}
_NEEDLES = {"regression": "How can I help", "capability": "What shall we work on", "live": "Hello"}
NOXFILE_MARKER = "# --- replay harness sessions"
"""The first line of the sessions' block: a noxfile holding it has the sessions."""

Action = Literal["created", "overwrote", "kept", "unchanged", "added", "present"]


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What `init` did to one file."""

    path: str
    """Relative to the project folder, `/`-separated."""
    action: Action
    """created / overwrote (with force) / kept (exists; force rewrites) / unchanged (the same
    content is there) / added (a table appended) / present (the table was there already)."""
    advice: tuple[str, ...] = ()
    """Lines the user should add by hand, because the file is theirs."""


@dataclass(frozen=True, kw_only=True)
class Scaffold:
    """What `init` did, file by file, in the order it did it."""

    root: str
    outcomes: tuple[Outcome, ...]
    requirement: str
    """The harness every written file installs."""
    warnings: tuple[str, ...] = ()
    """What may keep the written files from working in CI (a harness CI cannot reach)."""

    @property
    def changed(self) -> tuple[Outcome, ...]:
        """The files written or appended to."""
        return tuple(o for o in self.outcomes if o.action in ("created", "overwrote", "added"))


def noxfile_block(requirement: str) -> str:
    """The sessions' block of the noxfile, which needs nothing but nox and the stdlib."""
    return _template("nox-sessions.py.txt", requirement)


def init_project(
    root: str,
    *,
    agent: str | None = None,
    agent_command: str | None = None,
    ci: str = "github",
    force: bool = False,
    harness: str | None = None,
) -> Scaffold:
    """Write the gated-project files into `root`; see the module docstring.

    `harness` is the requirement the written files install; without it, the one this running
    harness was installed from (see `harness.authoring.pin`).

    Raises:
        UsageError: `root` is not a folder, or an option is malformed.
        ConfigError: The existing `pyproject.toml` cannot be read or appended to.
        ArtifactError: A file cannot be written.
    """
    if not os.path.isdir(root):
        raise UsageError(f"{root}: not a folder (harness init writes into an existing one)")
    if agent is not None and agent_command is not None:
        raise UsageError("harness init: give --agent or --agent-command, not both")
    if agent is not None and not _CALLABLE.fullmatch(agent):
        raise UsageError(f"--agent: expected MODULE:FACTORY, got {agent!r}")
    if agent_command is not None and not agent_command.strip():
        raise UsageError("--agent-command: must not be empty")
    if ci not in CI_CHOICES:
        raise UsageError(f"--ci: expected one of {', '.join(CI_CHOICES)}, got {ci!r}")
    if harness is not None and (not harness.strip() or not harness.isprintable()):
        raise UsageError(f"--harness: expected a pip requirement on one line, got {harness!r}")
    pinned = Pin(requirement=harness.strip()) if harness is not None else installed_pin(root)
    pin = pinned.requirement
    config = _pyproject(root, _table(agent, agent_command))  # refuses a bad file before any write
    files: list[tuple[str, str]] = [("evals/fixture.schema.json", _fixture_schema())]
    files += [(f"evals/{suite}/greeting.json", _example(suite)) for suite in _GREETINGS]
    files.append(("evals/README.md", _template("evals-README.md", pin)))
    outcomes = [_write(root, path, text, force=force) for path, text in files]
    if config is None:
        outcomes.append(Outcome(path="pyproject.toml", action="present"))
    else:
        write_atomic(os.path.join(root, "pyproject.toml"), config[1].encode())
        outcomes.append(Outcome(path="pyproject.toml", action=config[0]))
    block = noxfile_block(pin)
    noxfile = _template("noxfile.py.txt", pin).replace("@SESSIONS@\n", block)
    outcomes.append(
        _write(root, "noxfile.py", noxfile, force, NOXFILE_MARKER, tuple(block.splitlines()))
    )
    if ci == "github":
        outcomes.append(_write(root, GITHUB_WORKFLOW, _template("github.yml", pin), force=force))
    else:
        outcomes.append(_write(root, GITLAB_INCLUDE, _template("gitlab-ci.yml", pin), force=force))
        include = ("include:", f"  - local: {GITLAB_INCLUDE}")
        text = "# The replay harness's jobs (written by `harness init`).\n" + "\n".join(include)
        outcomes.append(_write(root, ".gitlab-ci.yml", text + "\n", force, GITLAB_INCLUDE, include))
    warnings = () if pinned.warning is None else (pinned.warning,)
    return Scaffold(root=root, outcomes=tuple(outcomes), requirement=pin, warnings=warnings)


def _write(
    root: str,
    path: str,
    text: str,
    force: bool,
    marker: str | None = None,
    advice: tuple[str, ...] = (),
) -> Outcome:
    """Write `text` to `root/path` unless a file is there; with `force`, replace it.

    A kept file that lacks `marker` gets `advice`: the lines to add to it by hand.
    """
    target = os.path.join(root, *path.split("/"))
    data = text.encode()
    if os.path.lexists(target):
        current = _read(target)
        if current == data:
            return Outcome(path=path, action="unchanged")
        if not force:
            needs = marker is not None and marker.encode() not in (current or b"")
            return Outcome(path=path, action="kept", advice=advice if needs else ())
    existed = os.path.lexists(target)
    write_atomic(target, data)
    return Outcome(path=path, action="overwrote" if existed else "created")


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:
        return None


def _template(name: str, pin: str) -> str:
    """A template with the requirement in: a Python string literal, or as text in comments."""
    with open(os.path.join(_TEMPLATES, name), encoding="utf-8") as file:
        text = file.read()
    literal = json.dumps(pin, ensure_ascii=False)
    return text.replace(f'"{_PLACEHOLDER}"', literal).replace(_PLACEHOLDER, pin)


def _fixture_schema() -> str:
    return schema_text(LlmTrace)


def _example(suite: str) -> str:
    """A greeting with no tools: it passes through any agent that returns the model's text."""
    user_input, reply = _GREETINGS[suite]
    fixture: dict[str, Any] = {
        "$schema": "../fixture.schema.json",
        "model_name": f"{suite}-greeting",
        "kind": "positive",
        "turns": [
            {
                "user_input": user_input,
                "steps": [
                    {
                        "response": {
                            "type": "text",
                            "content": reply,
                            "input_tokens": 12,
                            "output_tokens": 11,
                        }
                    }
                ],
            }
        ],
        "expects": {"response_contains": [_NEEDLES[suite]], "exact_tool_calls": 0},
    }
    return json.dumps(fixture, indent=2, ensure_ascii=False) + "\n"


def _table(agent: str | None, agent_command: str | None) -> dict[str, str]:
    table = {"suite_dir": "evals/regression", "history": ".harness/history.sqlite"}
    if agent is not None:
        table["agent"] = agent
    if agent_command is not None:
        table["agent_command"] = agent_command
    return table


def _pyproject(root: str, table: dict[str, str]) -> tuple[Action, str] | None:
    """The project's pyproject.toml with `[tool.harness]` appended, or None if it has one.

    The file is appended to as text, never re-serialised, so the rest of it is kept byte for
    byte; the result is parsed before it is returned. The action says whether the file is new.
    """
    path = os.path.join(root, "pyproject.toml")
    raw = _read(path) if os.path.lexists(path) else b""
    if raw is None:
        raise ConfigError(path, None, "cannot read it")
    try:
        text = raw.decode("utf-8")
        current = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"is not valid UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, None, f"invalid TOML: {exc}") from None
    tool = current.get("tool")
    if isinstance(tool, dict) and "harness" in tool:
        return None
    newline = "\r\n" if "\r\n" in text else "\n"
    block = [
        "[tool.harness]",
        "# Read by the replay harness (`harness init` wrote it); flags override it.",
    ]
    block += [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in table.items()]
    if "agent" not in table and "agent_command" not in table:
        block.append(
            '# agent = "package.module:factory"  # your agent; without one, the reference loop'
        )
    lead = "" if not text else (newline if text.endswith(("\n", "\r")) else newline * 2)
    updated = text + lead + newline.join(block) + newline
    try:
        written = tomllib.loads(updated)["tool"]["harness"]
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        reason = f"cannot append [tool.harness] ({exc}); add the table by hand"
        raise ConfigError(path, "[tool.harness]", reason) from None
    if written != table:
        raise ConfigError(path, "[tool.harness]", "cannot append the table; add it by hand")
    return ("added" if text else "created"), updated

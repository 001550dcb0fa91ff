"""How cases run (`Setup`: the agent, its tools, the time a case may take), and building it
from the project's `[tool.harness]` config and command-line overrides."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from harness.config import DEFAULT_OUTPUT_LIMIT, Config
from harness.errors import ConfigError
from harness.grading.result import Grader
from harness.messages import Observer
from harness.pipeline.plugins import Loaded, PluginPath, Plugins
from harness.replay.agent import Agent, ReferenceAgent
from harness.replay.context import CaseContext
from harness.replay.tools import default_tools

if TYPE_CHECKING:
    from harness.replay.plugin import ToolsFactory

__all__ = [
    "DEFAULT_CASE_TIMEOUT",
    "DEFAULT_SETUP",
    "AgentFactory",
    "Overrides",
    "Setup",
    "reference_agent",
    "registered_names",
    "setup_from",
    "tool_surface",
]


class Overrides(msgspec.Struct, frozen=True, kw_only=True):
    """The command line's overrides of the config's keys (None: the config's own)."""

    agent: str | None = None
    """The agent factory (`--agent`)."""
    tools: str | None = None
    """The tools factory (`--tools`)."""
    agent_command: str | None = None
    """An agent in any language (`--agent-command`)."""
    case_timeout: float | None = None
    """Seconds a case may take (`--case-timeout`)."""
    capture: bool = True
    """Whether the agent's output is captured per case (False: `-s`)."""
    tool_names: tuple[str, ...] | None = None
    """The tools an `agent_command` agent declares (`--tool-names`)."""
    tool_spans: bool | None = None
    """Whether wire agents' calls come from their spans (`--tool-spans`)."""
    agent_reuse: bool | None = None
    """Whether one agent command process plays case after case (`--agent-reuse`)."""


def setup_from(
    config: Config, config_path: str | None, overrides: Overrides | None = None
) -> tuple[Setup, tuple[str, ...]]:
    """The agent, tools and timeout to run with, and the names of the tools fixtures may name.

    `config` is the `[tool.harness]` of the file at `config_path` (None: the defaults), and
    `overrides` the command line's (None: none). The tool names are the registered tools' and
    the declared `tool_names`; an `agent_command` agent has only the declared ones (it brings
    its own tools), so without them its fixtures may name only the tools they script.

    Raises:
        ConfigError: A plugin cannot be loaded, or the settings contradict each other.
    """
    overrides = overrides or Overrides()
    agent, tools, agent_command = overrides.agent, overrides.tools, overrides.agent_command
    case_timeout, capture = overrides.case_timeout, overrides.capture
    tool_names, tool_spans = overrides.tool_names, overrides.tool_spans
    root = os.path.dirname(os.path.abspath(config_path)) if config_path else None
    setup = Setup(
        case_timeout=case_timeout or config.case_timeout,
        capture=capture,
        output_limit=config.max_output_chars,
        memory_mb=config.agent_memory_mb,
    )
    if tool_spans or (tool_spans is None and config.tool_spans):
        from harness.replay.otlp import require_otel

        source, key = ("--tool-spans", None) if tool_spans else (config_path, "tool_spans")
        require_otel(source or "pyproject.toml", key and f"[tool.harness].{key}")
        setup = msgspec.structs.replace(
            setup, tool_spans=True, tool_spans_grace_s=config.tool_spans_grace_s
        )
    agent_plugin = _origin(agent, config.agent, "agent", config_path)
    command, command_source, command_key = _origin_of(
        agent_command, config.agent_command, "agent_command", config_path
    )
    if command is not None:
        if agent_plugin is not None:
            reason = "set either agent or agent_command, not both"
            raise ConfigError(command_source, command_key, reason)
        argv = _command(command, command_source, command_key)
        _check_startable(argv[0], root, command_source, command_key)
        setup = msgspec.structs.replace(setup, agent_command=argv, root=root)
    setup = _with_reuse(setup, overrides.agent_reuse, config.agent_reuse, config_path)
    tools_plugin = _origin(tools, config.tools, "tools", config_path)
    if tools_plugin is None and not config.default_tools:
        raise ConfigError(
            config_path or "pyproject.toml",
            "[tool.harness].default_tools",
            "false leaves no tool at all: set `tools` to the project's tools factory",
        )
    graders = tuple(
        PluginPath(path=path, source=config_path or "pyproject.toml", key=key)
        for path, key in (
            (path, f"[tool.harness].graders[{index}]") for index, path in enumerate(config.graders)
        )
    )
    declared = tool_names if tool_names is not None else config.tool_names
    if setup.agent_command:
        # The command's own tools are known only by these names: keep them for its surface.
        setup = msgspec.structs.replace(setup, tool_names=tuple(declared or ()))
    plugins = Plugins(
        agent=agent_plugin,
        tools=tools_plugin,
        with_defaults=config.default_tools,
        graders=graders,
        root=root,
    )
    if plugins.named():
        setup = msgspec.structs.replace(setup, plugins=plugins)
    registered, surface = _described(setup)
    setup = msgspec.structs.replace(setup, surface=surface)
    registered = () if setup.agent_command else registered
    return setup, tuple(dict.fromkeys((*registered, *(declared or ()))))


def _described(setup: Setup) -> tuple[tuple[str, ...], str]:
    """The names of the tools `setup`'s agent is offered (the file tools of the reference
    loop included), and its tool surface, learnt where its plugins are loaded."""
    from harness.pipeline.plugins import isolated

    def describe(loaded: Loaded) -> list[Any]:
        ready = setup.with_loaded(loaded)
        names = tuple(tool.name for tool in ready.tools())
        return [list(registered_names(ready, names)), tool_surface(ready)]

    if setup.plugins is None:
        names, surface = describe(Loaded())
    else:
        timeout = setup.case_timeout or DEFAULT_CASE_TIMEOUT
        names, surface = isolated(setup.plugins, describe, timeout=timeout)
    return tuple(names), surface


def _with_reuse(
    setup: Setup, flag: bool | None, configured: bool, config_path: str | None
) -> Setup:
    """`setup` reusing its agent command's process, if `--agent-reuse` or the config say so.

    Raises:
        ConfigError: Reuse is asked for without an agent command.
    """
    if not (flag or (flag is None and configured)):
        return setup
    if not setup.agent_command:
        key = None if flag else "[tool.harness].agent_reuse"
        source = "--agent-reuse" if flag else config_path
        reason = "needs agent_command (the project's own agents already run in reused workers)"
        raise ConfigError(source or "pyproject.toml", key, reason)
    return msgspec.structs.replace(setup, agent_reuse=True)


def registered_names(setup: Setup, names: tuple[str, ...]) -> tuple[str, ...]:
    """`names`, the tools `setup.tools` makes, and the file tools the reference loop adds."""
    if setup.agent_factory is not reference_agent or setup.agent_command:
        return names
    from harness.replay.workspace_files import FILE_TOOL_NAMES

    return (*names, *(name for name in FILE_TOOL_NAMES if name not in names))


def tool_surface(setup: Setup) -> str:
    """`sha256:...` of the tools a case's agent is offered: names and parameter schemas.

    Two runs with the same surface offered the model the same tools; a baseline records it.
    An `agent_command` agent brings its own tools, which the harness knows only by their
    declared `tool_names`: its surface is those names, sorted, with no schemas.
    """
    import hashlib
    import json

    if setup.surface:  # learnt where the project's plugins were loaded
        return setup.surface
    if setup.agent_command:
        # The registered tools (the built-in echo) are never offered to a command's model, so
        # hashing them would give every command agent one surface whatever its tools.
        declared = sorted(set(setup.tool_names))
        text = json.dumps(declared, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    tools = list(setup.tools())
    if setup.agent_factory is reference_agent:
        from harness.replay.workspace import Workspace
        from harness.replay.workspace_files import file_tools

        names = {tool.name for tool in tools}
        tools += [tool for tool in file_tools(Workspace()) if tool.name not in names]
    surface = sorted((tool.name, tool.parameters) for tool in tools)
    text = json.dumps(surface, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _command(text: str, source: str, key: str | None) -> tuple[str, ...]:
    import shlex

    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise ConfigError(source, key, f"cannot split the command: {exc}") from None
    if not argv:
        raise ConfigError(source, key, "the command is empty")
    return argv


def _check_startable(program: str, root: str | None, source: str, key: str | None) -> None:
    """Refuse, before any case, an agent command that cannot start at all.

    Otherwise every case would error alike, and a typo would look like a failing agent.
    """
    import shutil

    if os.sep in program or (os.altsep and os.altsep in program):
        path = os.path.join(root or os.getcwd(), os.path.expanduser(program))
        if not os.path.isfile(path):
            raise ConfigError(source, key, f"cannot start {program!r}: no such file")
        if not os.access(path, os.X_OK):
            raise ConfigError(source, key, f"cannot start {program!r}: not executable")
    elif shutil.which(program) is None:
        raise ConfigError(source, key, f"cannot start {program!r}: not found on PATH")


def _origin_of(
    flag: str | None, configured: str | None, name: str, config_path: str | None
) -> tuple[str | None, str, str | None]:
    """A setting's value and where it came from: its flag, or its key in pyproject.toml."""
    if flag is not None:
        return flag, "--" + name.replace("_", "-"), None
    return configured, config_path or "pyproject.toml", f"[tool.harness].{name}"


def _origin(
    flag: str | None, configured: str | None, name: str, config_path: str | None
) -> PluginPath | None:
    """The plugin a flag or a config key names, or None when neither does."""
    path, source, key = _origin_of(flag or None, configured, name, config_path)
    return PluginPath(path=path, source=source, key=key) if path else None


AgentFactory = Callable[[CaseContext], Agent]
"""Builds the agent for one case from its `CaseContext`."""


DEFAULT_CASE_TIMEOUT = 60.0
"""Seconds a case may run before it errors as hung."""


def reference_agent(context: CaseContext) -> Agent:
    """The default `AgentFactory`: the reference loop over the case's provider and tools.

    The loop also gets `write_file` and `read_file`, confined to the case workspace, unless
    the project's tools already use those names.
    """
    from harness.replay.workspace_files import file_tools

    return ReferenceAgent(context.provider, context.tools.with_tools(file_tools(context.workspace)))


class Setup(msgspec.Struct, frozen=True, kw_only=True):
    """How cases are run: which agent, which tools, how long a case may take."""

    agent_factory: AgentFactory = reference_agent
    """Builds each case's agent."""
    tools: ToolsFactory = default_tools
    """Makes each case's tools."""
    case_timeout: float | None = DEFAULT_CASE_TIMEOUT
    """Seconds before a case errors as hung (None: no limit)."""
    agent_name: str = "the agent factory"
    """How errors name the agent factory (its config path, say)."""
    observers: tuple[Observer, ...] = ()
    """The project's own observers, notified of every event after the recorder."""
    agent_command: tuple[str, ...] = ()
    """An agent in any language: the command run once per case (JSON lines on stdin/stdout)."""
    root: str | None = None
    """The project folder, where the agent command runs."""
    agent_reuse: bool = False
    """Whether each supervised worker plays case after case through one agent command process."""
    tool_names: tuple[str, ...] = ()
    """The tools an `agent_command` agent declares (`tool_names`, `--tool-names`); empty for
    any other agent. They are all the harness knows of its tools, so they make its surface."""
    graders: tuple[Grader, ...] = ()
    """The project's own graders, run after the expectations."""
    capture: bool = True
    """Whether the agent's stdout and stderr are captured per case (False: shown live, `-s`)."""
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    """Characters of each captured stream kept; a case that writes more errors."""
    memory_mb: int | None = None
    """The address space a subprocess or supervised agent may use, in MiB (None: no limit)."""
    in_worker: bool = False
    """Set inside a supervised worker: the process is expendable, so cases run on its main
    thread under a timer signal, and whatever the agent raises errors its case."""
    tool_spans: bool = False
    """Whether wire agents' calls come from the OpenTelemetry spans they export.

    The one predicate for what a wire agent lets the harness observe: with it on, the
    arguments each tool received and whether it failed are seen, so `tool_arguments_contain`
    and `all_tools_succeeded` are admitted for wire agents and their mutants counted.
    """
    tool_spans_grace_s: float = 2.0
    """Seconds to wait after a case's last turn for spans still being exported."""

    plugins: Plugins | None = None
    """The project's code named by the config, not yet loaded: each worker process loads it
    (`loaded`) before its first case, and the harness's own process never does."""
    surface: str = ""
    """The tool surface, when it was learnt where the plugins were loaded."""

    @property
    def runs_project_code(self) -> bool:
        """Whether the project's own code takes part in a case: its agent (a factory or a
        command), its tools, its graders or its observers.

        Such code may exit, crash, print or hang, so its cases run in supervised workers. The
        reference loop over the default tools and the built-in graders is bounded and silent,
        and runs where the harness does.
        """
        custom = self.agent_factory is not reference_agent or self.tools is not default_tools
        extensions = bool(self.graders or self.observers or self.plugins)
        return custom or extensions or bool(self.agent_command)

    def with_loaded(self, loaded: Loaded) -> Setup:
        """This setup running with `loaded`, the plugins as imported."""
        changes: dict[str, Any] = {"plugins": None}
        if loaded.agent_factory is not None:
            changes["agent_factory"] = loaded.agent_factory
            changes["agent_name"] = self._named("agent")
        if loaded.tools is not None:
            changes["tools"] = loaded.tools
        if loaded.graders:
            changes["graders"] = (*self.graders, *loaded.graders)
        return msgspec.structs.replace(self, **changes)

    def loaded(self) -> Setup:
        """This setup with its plugins imported, in this process (a worker's, or where there
        is no fork to keep them out of the harness's).

        Raises:
            ConfigError: A plugin cannot be loaded.
        """
        if self.plugins is None:
            return self
        from harness.pipeline.plugins import load_plugins

        return self.with_loaded(load_plugins(self.plugins))

    def _named(self, what: str) -> str:
        plugin = getattr(self.plugins, what, None)
        if plugin is None:
            return self.agent_name
        return f"{plugin.source}: {plugin.path}"


DEFAULT_SETUP = Setup()

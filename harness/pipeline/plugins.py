"""The project's own code (its agent factory, tools factory and graders), named by the config
and loaded only in a process that does not decide the run's exit status.

Importing a project's module runs its code: it may call `sys.exit(0)`, `os._exit(0)` or
`os.execv`, print, raise `KeyboardInterrupt`, or never return. Were it imported by the
harness itself, any of these would end the run with a status of its own (a false green) or
corrupt its report. So the harness keeps only the plugins' paths (`Plugins`), and:

- `isolated` loads them in a forked child to learn what the load needs of them (their tool
  names, the tool surface); whatever the import does, the harness gets either that answer or
  one `ConfigError` naming the plugin, so a run that cannot start exits 2;
- each supervised worker loads them again (`load_plugins`) and runs the cases with them, where
  an exit, an exec, a crash, a print or a hang can only error the case it happens in.

In both children descriptor 1 points at descriptor 2: what project code prints goes to the
harness's stderr, never into its stdout (a `--format json` document).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

import msgspec

from harness.errors import ConfigError
from harness.grading.result import Grader
from harness.lifeline import die_with_parent
from harness.replay.plugin import check_tools, load_agent_factory, load_callable, load_tools_factory

__all__ = ["Loaded", "PluginPath", "Plugins", "isolated", "load_plugins", "quiet_stdout"]


class PluginPath(msgspec.Struct, frozen=True, kw_only=True):
    """One `module:factory` of the project, and where it was named."""

    path: str
    """`module:factory`."""
    source: str
    """The file or flag that named it (`pyproject.toml`, `--agent`)."""
    key: str | None = None
    """The config key that named it (`[tool.harness].agent`), None for a flag."""


class Plugins(msgspec.Struct, frozen=True, kw_only=True):
    """The project's code a run uses, not yet imported."""

    agent: PluginPath | None = None
    """The agent factory (`agent`, `--agent`)."""
    tools: PluginPath | None = None
    """The tools factory (`tools`, `--tools`)."""
    with_defaults: bool = True
    """Whether the built-in tools stay beside the project's (`default_tools`)."""
    graders: tuple[PluginPath, ...] = ()
    """Each grader factory (`graders`)."""
    root: str | None = None
    """The project folder, importable while they load."""

    def named(self) -> list[tuple[str, PluginPath]]:
        """Each plugin with what it is, in the order they load."""
        named = [("agent factory", self.agent), ("tools factory", self.tools)]
        named += [("grader factory", grader) for grader in self.graders]
        return [(what, plugin) for what, plugin in named if plugin is not None]


class Loaded(msgspec.Struct, frozen=True, kw_only=True):
    """The plugins imported and checked: what a `Setup` runs with."""

    agent_factory: Any = None
    """The agent factory, or None for the reference loop."""
    tools: Any = None
    """The tools factory (`ProjectTools`), or None for the default tools."""
    graders: tuple[Grader, ...] = ()
    """The project's graders, built once."""


def load_plugins(plugins: Plugins, *, loading: Callable[[int], object] | None = None) -> Loaded:
    """Import and check each plugin of `plugins` (`loading(i)` is told before the i-th).

    Whatever a plugin raises while it is imported or built, `SystemExit` and
    `KeyboardInterrupt` included, becomes a `ConfigError` naming it.

    Raises:
        ConfigError: A plugin cannot be imported, built, or is not what its key needs.
    """
    agent_factory, tools = None, None
    graders: list[Grader] = []
    for index, (what, plugin) in enumerate(plugins.named()):
        if loading is not None:
            loading(index)
        source, key, root = plugin.source, plugin.key, plugins.root
        try:
            if plugin is plugins.agent:
                agent_factory = load_agent_factory(plugin.path, source=source, key=key, root=root)
            elif plugin is plugins.tools:
                tools = load_tools_factory(
                    plugin.path,
                    source=source,
                    key=key,
                    root=root,
                    with_defaults=plugins.with_defaults,
                )
                check_tools(tools, source=plugin.source, key=plugin.key)
            else:
                graders.append(_grader(plugin, plugins.root))
        except ConfigError:
            raise
        except BaseException as exc:  # an exit or a Ctrl-C raised by its own code
            reason = f"the {what} {plugin.path!r} raised {type(exc).__name__} while loading"
            detail = str(exc)
            raise ConfigError(
                plugin.source, plugin.key, f"{reason}: {detail}" if detail else reason
            ) from None
    return Loaded(agent_factory=agent_factory, tools=tools, graders=tuple(graders))


def _grader(plugin: PluginPath, root: str | None) -> Grader:
    """The grader `plugin`'s factory makes.

    Raises:
        ConfigError: It cannot be loaded, its factory fails, or makes no grader.
    """
    factory = load_callable(plugin.path, source=plugin.source, key=plugin.key, root=root)
    try:
        grader = factory()
    except Exception as exc:
        reason = f"the grader factory failed: {type(exc).__name__}: {exc}"
        raise ConfigError(plugin.source, plugin.key, reason) from None
    if not callable(getattr(grader, "grade", None)):
        reason = (
            f"{plugin.path} made {type(grader).__name__}, which is not a grader "
            "(it needs grade(case, record, context))"
        )
        raise ConfigError(plugin.source, plugin.key, reason)
    return grader  # type: ignore[no-any-return]


def quiet_stdout() -> None:
    """Point descriptor 1 (and `sys.stdout`) at descriptor 2 in this child process: what the
    project's code prints is never part of the harness's stdout."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
    with contextlib.suppress(OSError):
        os.dup2(2, 1)


_Answer = msgspec.json.Decoder(dict[str, Any])


def isolated(
    plugins: Plugins,
    work: Callable[[Loaded], Any],
    *,
    timeout: float,
) -> Any:
    """`work(loaded)`, where `loaded` is `plugins` loaded in a forked child process.

    The child loads the plugins, calls `work` and sends back what it returns (plain data, as
    JSON). Should the child exit, exec, die of a signal, or not answer within `timeout`
    seconds, the plugin it was loading is named in a `ConfigError`, and the child (with all
    it started) is ended. Where there is no fork, the plugins load here.

    Raises:
        ConfigError: A plugin cannot be loaded, or its loading ended or hung the child.
    """
    if not hasattr(os, "fork"):
        return work(load_plugins(plugins))
    read_end, write_end = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's stack
        try:
            os.close(read_end)
            die_with_parent(parent)
            _child(plugins, work, write_end)
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        lines = _read_all(read_end, deadline=time.monotonic() + timeout)
    finally:
        os.close(read_end)
    status = _ended(pid)
    return _answer(plugins, lines, status, timeout)


def _child(plugins: Plugins, work: Callable[[Loaded], Any], out: int) -> None:
    os.setsid()  # its own group: what it starts is ended with it
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the harness's to handle
    quiet_stdout()

    def send(message: dict[str, Any]) -> None:
        os.write(out, msgspec.json.encode(message) + b"\n")

    try:
        loaded = load_plugins(plugins, loading=lambda index: send({"loading": index}))
        send({"ok": work(loaded)})
    except ConfigError as exc:
        send({"error": [exc.source, exc.key, exc.reason]})
    except BaseException as exc:  # what `work` itself runs of the project's code
        send({"error": [None, None, f"{type(exc).__name__}: {exc}"]})


def _read_all(fd: int, *, deadline: float) -> list[bytes] | None:
    """The lines the child sent before it closed its end, or None if it did not in time."""
    data = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return data.splitlines()
        data += chunk


def _ended(pid: int) -> int | None:
    """End the child's group and reap it: its wait status, or None if it had to be killed."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return None
    return status


def _answer(plugins: Plugins, lines: list[bytes] | None, status: int | None, timeout: float) -> Any:
    messages = []
    for line in lines or ():
        with contextlib.suppress(msgspec.DecodeError):
            messages.append(_Answer.decode(line))
    loading = None
    for message in messages:
        if "ok" in message:
            return message["ok"]
        if "error" in message:
            source, key, reason = message["error"]
            if source is None:  # raised by the work itself, not by one plugin
                plugin = _last(plugins, loading)
                source, key = plugin.source, plugin.key
            raise ConfigError(source, key, reason)
        loading = message.get("loading")
    plugin = _last(plugins, loading)
    what = plugins.named()[loading if isinstance(loading, int) else -1][0]
    if lines is None:
        reason = (
            f"loading the {what} {plugin.path!r} did not finish within {timeout:g}s; "
            "project code must not block while it is imported or built"
        )
    else:
        how = _how(status)
        reason = (
            f"the {what} {plugin.path!r} ended the process while it was loaded ({how}); "
            "project code must not exit, exec or crash while it is imported or built"
        )
    raise ConfigError(plugin.source, plugin.key, reason)


def _last(plugins: Plugins, loading: object) -> PluginPath:
    named = plugins.named()
    index = loading if isinstance(loading, int) and 0 <= loading < len(named) else -1
    return named[index][1]


def _how(status: int | None) -> str:
    if status is None:
        return "it could not be waited for"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"

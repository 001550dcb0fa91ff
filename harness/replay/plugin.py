"""Loading a project's own agent and tools from `package.module:attribute` paths."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

from harness.errors import ConfigError
from harness.replay.tools import Tool, default_tools

__all__ = ["ToolsFactory", "load_agent_factory", "load_callable", "load_tools_factory"]

ToolsFactory = Callable[[], Iterable[Tool]]
"""Makes a fresh set of tools for one case."""


def load_callable(path: str, *, source: str, key: str | None, root: str | None = None) -> Any:
    """Import `package.module:attribute` and return the attribute, which must be callable.

    The project's folder (`root`, else the current one) is importable, as for other tools that
    load application code by path.

    Raises:
        ConfigError: The path is malformed, cannot be imported, or names no callable.
    """
    module_name, sep, attribute = path.partition(":")
    if not sep or not module_name or not attribute:
        raise ConfigError(source, key, f'expected "package.module:attribute", got {path!r}')
    for folder in (root, os.getcwd()):
        if folder and folder not in sys.path:
            sys.path.insert(0, folder)
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure of user code is a config problem
        reason = f"cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        if isinstance(exc, ModuleNotFoundError) and exc.name is not None:
            siblings = _sibling_modules(exc.name, [root or "", os.getcwd()])
            reason += _did_you_mean(exc.name.rpartition(".")[2], siblings)
        raise ConfigError(source, key, reason) from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            names = [name for name in dir(target) if not name.startswith("_")]
            reason = f"{module_name!r} has no attribute {attribute!r}{_did_you_mean(part, names)}"
            raise ConfigError(source, key, reason)
        target = getattr(target, part)
    if not callable(target):
        raise ConfigError(source, key, f"{path!r} is not callable")
    return target


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean "agent_factory"?` for the closest of `known`, or nothing."""
    import difflib  # deferred, as is pkgutil below: only a plugin that fails to load needs it

    hint = difflib.get_close_matches(name, sorted(set(known)), n=1)
    return f'; did you mean "{hint[0]}"?' if hint else ""


def _sibling_modules(missing: str, project: list[str]) -> list[str]:
    """The modules beside the missing `missing`: in its package, or in the `project` folders."""
    import pkgutil

    package, _, _ = missing.rpartition(".")
    if not package:
        return [module.name for module in pkgutil.iter_modules([p for p in project if p])]
    try:
        paths = importlib.import_module(package).__path__
    except Exception:  # the package itself cannot be imported: nothing to suggest
        return []
    return [module.name for module in pkgutil.iter_modules(paths)]


def load_agent_factory(path: str, *, source: str, key: str | None, root: str | None) -> Any:
    """The project's agent factory: a callable taking one `CaseContext`.

    Raises:
        ConfigError: It cannot be loaded, or cannot be called with one positional argument.
    """
    import inspect  # only for the signature: a run without a factory never loads it

    factory = load_callable(path, source=source, key=key, root=root)
    try:
        signature = inspect.signature(factory)
    except ValueError:
        return factory  # no signature to inspect (some builtins): let the first call tell
    try:
        signature.bind(None)
    except TypeError:
        reason = f"{path!r} must accept one argument, the case's CaseContext: factory(context)"
        raise ConfigError(source, key, reason) from None
    return factory


def load_tools_factory(
    path: str, *, source: str, key: str | None, root: str | None, with_defaults: bool
) -> ToolsFactory:
    """A factory of the project's tools, beside the default ones or instead of them.

    Check what it makes with `check_tools` before running with it.

    Raises:
        ConfigError: The factory cannot be loaded.
    """
    factory = load_callable(path, source=source, key=key, root=root)
    return ProjectTools(factory, with_defaults=with_defaults)


class ProjectTools:
    """A tools factory: the project's tools, after the defaults when they are kept.

    A plain object rather than a closure, so worker processes (`--jobs`) can receive it.
    """

    def __init__(self, factory: Callable[[], Iterable[Tool]], *, with_defaults: bool) -> None:
        self.factory = factory
        self.with_defaults = with_defaults

    def __call__(self) -> tuple[Tool, ...]:
        defaults = default_tools() if self.with_defaults else ()
        return (*defaults, *self.factory())


def check_tools(factory: ToolsFactory, *, source: str, key: str | None) -> tuple[str, ...]:
    """The names of the tools `factory` makes.

    Raises:
        ConfigError: It fails, returns something that is not tools, or repeats a name.
    """
    try:
        tools = list(factory())
    except Exception as exc:
        raise ConfigError(
            source, key, f"the tools factory failed: {type(exc).__name__}: {exc}"
        ) from None
    names: list[str] = []
    for tool in tools:
        if not isinstance(tool, Tool) or not isinstance(tool.name, str) or not tool.name:
            reason = (
                f"the tools factory returned {type(tool).__name__}, which is not a tool "
                "(it needs name, description, parameters and call(arguments))"
            )
            raise ConfigError(source, key, reason)
        if tool.name in names:
            raise ConfigError(source, key, f"two tools are named {tool.name!r}")
        names.append(tool.name)
    return tuple(names)

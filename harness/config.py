"""Configuration: `[tool.harness]` in the project's `pyproject.toml`, overridden by flags."""

from __future__ import annotations

import os
import tomllib
from typing import Annotated, Any, Literal

import msgspec

from harness.errors import ConfigError
from harness.fixtures.diagnosis import describe_validation
from harness.fixtures.limits import DEFAULT_LIMITS, Limits

__all__ = [
    "DEFAULT_HISTORY",
    "DEFAULT_OUTPUT_LIMIT",
    "DEFAULT_SUITE_DIR",
    "MAX_SECONDS",
    "MODES",
    "Config",
    "find_pyproject",
    "load_config",
]

DEFAULT_SUITE_DIR = "evals/regression"
DEFAULT_HISTORY = ".harness/history.sqlite"
"""The gated suite, run when neither config nor flags name another."""
MODES = ("replay", "live")
Mode = Literal["replay", "live"]
_SECTION = "[tool.harness]"
PATH_KEYS = ("suite_dir", "history")
MAX_CONFIG_BYTES = 4 * 1024 * 1024
MAX_SECONDS = 1_000_000
"""The longest `case_timeout` (some 11 days): a finite bound every timer can hold."""
MAX_INT = 2**40
"""The largest size or count a key takes: more is a typo, and past 2**63 no system call takes it."""
MAX_MEMORY_MB = 2**30
"""The largest `agent_memory_mb`: in bytes, still within what `setrlimit` takes."""
DEFAULT_OUTPUT_LIMIT = 100_000
"""Characters of a case's captured stdout, and of its stderr, kept in the reports."""
"""Keys holding paths, which are relative to the pyproject.toml that sets them."""


class Config(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The keys of `[tool.harness]`."""

    suite_dir: str = DEFAULT_SUITE_DIR
    """The suite folder `harness run` replays, relative to the pyproject.toml's folder."""
    mode: Mode = "replay"
    """`replay` (deterministic, free) or `live` (a real model; not in Phase 0)."""
    history: str = DEFAULT_HISTORY
    """The run history file (SQLite), relative to the pyproject.toml's folder."""
    agent: str | None = None
    """`package.module:factory` building the project's own agent (default: the reference loop)."""
    tools: str | None = None
    """`package.module:factory` making the project's own tools."""
    graders: tuple[str, ...] = ()
    """`package.module:factory` paths, each making one of the project's own graders."""
    agent_command: str | None = None
    """A command that runs the agent in any language against the replay endpoint."""
    agent_reuse: bool = False
    """Whether each worker starts `agent_command` once and plays case after case through it."""
    tool_names: tuple[Annotated[str, msgspec.Meta(min_length=1)], ...] | None = None
    """The names of the agent's own tools, for an agent whose tools are no harness `Tool`
    (a wire agent): fixtures may name them. Without it, a wire agent's fixtures may name
    only the tools they script."""
    default_tools: bool = True
    """Whether the built-in `echo` stays registered beside the project's tools."""
    case_timeout: Annotated[float, msgspec.Meta(gt=0, le=MAX_SECONDS)] = 60.0
    """Seconds a case may run before it errors as hung (finite: `inf` would mean never)."""
    privacy_allow: tuple[str, ...] = ()
    """Domains, IP addresses or networks, and exact strings the privacy lint accepts."""
    max_fixture_bytes: Annotated[int, msgspec.Meta(ge=1, le=MAX_INT)] = (
        DEFAULT_LIMITS.max_fixture_bytes
    )
    """A fixture file larger than this is refused before it is read."""
    max_nesting: Annotated[int, msgspec.Meta(ge=1, le=MAX_INT)] = DEFAULT_LIMITS.max_nesting
    """How deep a call's `arguments` may nest."""
    max_fixtures: Annotated[int, msgspec.Meta(ge=1, le=MAX_INT)] = DEFAULT_LIMITS.max_fixtures
    """A suite with more fixtures than this is refused."""
    follow_external_symlinks: bool = DEFAULT_LIMITS.follow_external_symlinks
    """Whether a fixture may be a symlink to a file outside its suite folder."""
    max_output_chars: Annotated[int, msgspec.Meta(ge=1, le=MAX_INT)] = DEFAULT_OUTPUT_LIMIT
    """Characters of a case's captured stdout, and of its stderr, kept; more errors the case."""
    agent_memory_mb: Annotated[int, msgspec.Meta(ge=1, le=MAX_MEMORY_MB)] | None = None
    """The address space a subprocess or supervised agent may use, in MiB (None: no limit)."""
    tool_spans: bool = False
    """Whether wire agents' calls are recorded from the OpenTelemetry spans they export."""
    tool_spans_grace_s: Annotated[float, msgspec.Meta(ge=0, le=60)] = 2.0
    """Seconds to wait, after a case's last turn, for the tool spans it has yet to export."""

    @property
    def limits(self) -> Limits:
        """The input bounds this configuration sets."""
        return Limits(
            max_fixture_bytes=self.max_fixture_bytes,
            max_nesting=self.max_nesting,
            max_fixtures=self.max_fixtures,
            follow_external_symlinks=self.follow_external_symlinks,
        )


def find_pyproject(start: str = ".") -> str | None:
    """The nearest `pyproject.toml` in `start` or a parent folder, or None."""
    folder = os.path.abspath(start)
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_config(path: str | None = None) -> Config:
    """Read `[tool.harness]` from `path`, or from the nearest pyproject.toml.

    A missing file or section gives the defaults. `suite_dir` comes back relative to the
    current folder.

    Raises:
        ConfigError: The file cannot be read or parsed, or the section is invalid.
    """
    path = path if path is not None else find_pyproject()
    if path is None:
        return Config()
    table = _section(path)
    try:
        config = msgspec.convert(table, Config)
    except msgspec.ValidationError as exc:
        key, reason = _describe(str(exc))
        raise ConfigError(path, key, reason) from None
    _check_strings(path, config)
    root = os.path.dirname(os.path.abspath(path))
    resolved = {key: os.path.relpath(os.path.join(root, getattr(config, key))) for key in PATH_KEYS}
    return msgspec.structs.replace(config, **resolved)


def _check_strings(path: str, config: Config) -> None:
    """Refuse an empty path or command, and a NUL in any string (no path or argv holds one)."""
    for key in Config.__struct_fields__:
        value = getattr(config, key)
        for text in value if isinstance(value, tuple) else (value,):
            if isinstance(text, str) and "\x00" in text:
                raise ConfigError(path, f"{_SECTION}.{key}", "must not contain a NUL character")
    for key in (*PATH_KEYS, "agent_command", "agent", "tools"):
        value = getattr(config, key)
        if value is not None and not value.strip():
            raise ConfigError(path, f"{_SECTION}.{key}", "must not be empty")


def _section(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(path, None, f"is over {MAX_CONFIG_BYTES} bytes: not a pyproject.toml")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"is not valid UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, None, f"invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(path, None, "invalid TOML: nested too deeply") from None
    tool = data.get("tool", {})
    table = tool.get("harness", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ConfigError(path, _SECTION, "must be a table")
    return table


def _describe(message: str) -> tuple[str, str]:
    """`[tool.harness].key` and the reason, from a msgspec validation error."""
    fields = Config.__struct_fields__
    path, reason = describe_validation(message, fields)
    key = path.removeprefix("$").removeprefix(".")
    if reason.startswith("unknown key"):
        reason = f"{reason}; known keys: {', '.join(fields)}"
    elif key == "mode":
        reason = f"must be one of {', '.join(map(repr, MODES))}"
    elif key == "case_timeout":
        reason = f"must be a finite number of seconds > 0 and <= {MAX_SECONDS}"
    elif key in ("max_output_chars", "agent_memory_mb"):
        top = MAX_MEMORY_MB if key == "agent_memory_mb" else MAX_INT
        reason = f"must be an integer from 1 to {top}"
    elif key == "tool_spans_grace_s":
        reason = "must be a number of seconds from 0 to 60"
    return (f"{_SECTION}.{key}" if key else _SECTION), reason

"""Fuzzing the loaders: any input is a valid trace or a FixtureError/ConfigError, never a crash."""

from __future__ import annotations

import contextlib
import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.config import Config, load_config
from harness.errors import ConfigError, FixtureError
from harness.fixtures.format import LlmTrace
from harness.fixtures.reading import decode_trace
from tests.builders import ECHO_TRACE

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PATH = "fuzz.json"
NEST = "__nest_here__"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=25,
)


def outcome(data: bytes) -> LlmTrace | FixtureError:
    """The loader's answer; any exception other than FixtureError propagates and fails."""
    try:
        return decode_trace(PATH, data)
    except FixtureError as exc:
        rejection = exc
    assert rejection.path == PATH
    assert str(rejection).startswith(f"{PATH}: ")
    return rejection


@FUZZ
@given(st.binary(max_size=600))
def test_arbitrary_bytes(data: bytes) -> None:
    """Random bytes never crash the loader."""
    outcome(data)


@FUZZ
@given(json_values)
def test_arbitrary_json(value: Any) -> None:
    """Any JSON document is a trace or a named rejection."""
    outcome(json.dumps(value).encode())


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every container path inside a JSON value."""
    found = [prefix]
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        if isinstance(item, dict | list):
            found += paths(item, (*prefix, key))
    return found


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


@st.composite
def mutated_fixtures(draw: st.DrawFn) -> bytes:
    """A valid fixture with keys renamed, dropped or added, types swapped, emptied or nested."""
    trace = copy.deepcopy(ECHO_TRACE)
    depth = draw(st.integers(1, 3000))
    for _ in range(draw(st.integers(1, 4))):
        container = at(trace, draw(st.sampled_from(paths(trace))))
        action = draw(st.sampled_from(["rename", "drop", "add", "swap", "empty", "nest"]))
        keys = list(container) if isinstance(container, dict) else list(range(len(container)))
        if not keys:
            continue
        key = draw(st.sampled_from(keys))
        if action == "rename" and isinstance(container, dict):
            container[key + draw(st.sampled_from(["_", "s", "X"]))] = container.pop(key)
        elif action == "drop":
            del container[key]
        elif action == "add" and isinstance(container, dict):
            container[draw(st.text(min_size=1, max_size=8))] = draw(json_values)
        elif action == "swap":
            container[key] = draw(json_values)
        elif action == "empty":
            container[key] = (
                type(container[key])() if isinstance(container[key], dict | list | str) else None
            )
        elif action == "nest":
            container[key] = NEST
    # Nesting is spliced in as text: building it as Python objects would hit the recursion limit.
    return json.dumps(trace).replace(f'"{NEST}"', "[" * depth + "]" * depth).encode()


@FUZZ
@given(mutated_fixtures())
def test_structure_aware_mutations(data: bytes) -> None:
    """Near-valid fixtures are either admitted whole or rejected with a named reason."""
    result = outcome(data)
    if isinstance(result, LlmTrace):
        assert result.expects is not None
        assert result.turns


@FUZZ
@given(
    st.binary(max_size=400)
    | json_values.map(lambda v: f"[tool.harness]\nx = {json.dumps(v)}\n".encode())
)
def test_config_loader(tmp_path_factory: Any, data: bytes) -> None:
    """Any pyproject.toml content gives a Config or a ConfigError."""
    path = Path(tmp_path_factory.mktemp("cfg")) / "pyproject.toml"
    path.write_bytes(data)
    try:
        config: Config | ConfigError = load_config(str(path))
    except ConfigError as exc:
        config = exc
    assert isinstance(config, Config) or config.source == str(path)


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "suite_dir",
                "mode",
                "history",
                "case_timeout",
                "max_nesting",
                "agent",
                "privacy_allow",
            ]
        ),
        json_values,
        max_size=3,
    )
)
def test_config_values(tmp_path_factory: Any, table: dict[str, Any]) -> None:
    """Known keys with any value types are validated, never trusted."""
    body = "[tool.harness]\n" + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in table.items()
    )
    path = Path(tmp_path_factory.mktemp("cfg")) / "pyproject.toml"
    path.write_text(body)
    with contextlib.suppress(ConfigError):
        assert isinstance(load_config(str(path)), Config)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutated_fixtures() | st.binary(max_size=200), min_size=1, max_size=3))
def test_the_cli_never_shows_a_traceback(tmp_path_factory: Any, fixtures: list[bytes]) -> None:
    """Whatever the suite holds, `harness run` answers 0, 1 or 2 and speaks in one-line errors."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from harness._cli.main import main

    suite = Path(tmp_path_factory.mktemp("suite"))
    for index, data in enumerate(fixtures):
        (suite / f"case_{index}.json").write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["run", "--suite", str(suite)])
    assert status in (0, 1, 2)
    assert "Traceback" not in err.getvalue()
    assert all(line.startswith("harness: ") for line in err.getvalue().splitlines())

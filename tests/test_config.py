"""[tool.harness] in pyproject.toml."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.config import DEFAULT_SUITE_DIR, Config, find_pyproject, load_config
from harness.errors import ConfigError


def pyproject(tmp_path: Path, body: str) -> str:
    path = tmp_path / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return str(path)


def test_defaults_without_a_section(tmp_path: Path) -> None:
    """No [tool.harness] section means the defaults."""
    config = load_config(pyproject(tmp_path, "[project]\nname = 'x'\n"))
    assert config.mode == "replay"
    assert os.path.abspath(config.suite_dir) == str(tmp_path / DEFAULT_SUITE_DIR)


def test_keys_are_read_and_suite_dir_is_relative_to_the_file(tmp_path: Path) -> None:
    """suite_dir is resolved against the pyproject.toml's folder."""
    path = pyproject(tmp_path, '[tool.harness]\nsuite_dir = "evals/capability"\nmode = "live"\n')
    config = load_config(path)
    assert config.mode == "live"
    assert os.path.abspath(config.suite_dir) == str(tmp_path / "evals" / "capability")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            "[tool.harness]\nsuite = 'x'\n",
            '[tool.harness].suite: unknown key (did you mean "suite_dir"?); '
            "known keys: suite_dir, mode, ",
            id="unknown-key",
        ),
        pytest.param(
            "[tool.harness]\nmode = 'remote'\n",
            "[tool.harness].mode: must be one of 'replay', 'live'",
            id="bad-mode",
        ),
        pytest.param(
            "[tool.harness]\nsuite_dir = 3\n",
            "[tool.harness].suite_dir: expected a string, got an integer",
            id="bad-type",
        ),
        pytest.param(
            "[tool.harness]\nsuite_dir = ''\n",
            "[tool.harness].suite_dir: must not be empty",
            id="empty",
        ),
        pytest.param(
            "[tool.harness]\ntool_spans_grace_s = -1\n",
            "[tool.harness].tool_spans_grace_s: must be a number of seconds from 0 to 60",
            id="bad-grace",
        ),
        *(
            pytest.param(
                f"[tool.harness]\ncase_timeout = {value}\n",
                "[tool.harness].case_timeout: must be a finite number of seconds > 0 and <= ",
                id=f"timeout-{value}",
            )
            for value in ("inf", "nan", "-inf", "-1", "0", "1e300")
        ),
        *(
            pytest.param(
                f'[tool.harness]\n{key} = "{value}"\n',
                f"[tool.harness].{key}: must not {reason}",
                id=f"{key}-{reason.split()[0]}",
            )
            for key, value, reason in (
                ("suite_dir", "su\\u0000ite", "contain a NUL character"),
                ("history", "h\\u0000", "contain a NUL character"),
                ("agent_command", "", "be empty"),
                ("agent_command", "  ", "be empty"),
                ("agent", "", "be empty"),
            )
        ),
        pytest.param("[tool]\nharness = 1\n", "[tool.harness]: must be a table", id="not-a-table"),
        pytest.param("[tool.harness\n", "invalid TOML: ", id="bad-toml"),
    ],
)
def test_invalid_config_names_file_key_and_reason(tmp_path: Path, body: str, message: str) -> None:
    """A bad key or value is one ConfigError naming the file, the key and the fix."""
    path = pyproject(tmp_path, body)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: {message}")


def test_pyproject_is_found_in_a_parent_folder(tmp_path: Path) -> None:
    """Like other tools, the nearest pyproject.toml upward applies."""
    path = pyproject(tmp_path, "")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_pyproject(str(nested)) == path


def test_project_default_is_the_gated_suite() -> None:
    """The Config default is the regression suite."""
    assert Config().suite_dir == "evals/regression"


def test_containment_keys_are_read_and_reach_the_setup(tmp_path: Path) -> None:
    """max_output_chars and agent_memory_mb go from the table into how cases run."""
    from harness.pipeline.setup import Overrides, setup_from

    path = pyproject(tmp_path, "[tool.harness]\nmax_output_chars = 500\nagent_memory_mb = 256\n")
    config = load_config(path)
    assert (config.max_output_chars, config.agent_memory_mb) == (500, 256)
    setup, _ = setup_from(config, path, Overrides(capture=False))
    assert (setup.output_limit, setup.memory_mb, setup.capture) == (500, 256, False)
    assert Config().agent_memory_mb is None


@pytest.mark.parametrize(("key", "top"), [("max_output_chars", 2**40), ("agent_memory_mb", 2**30)])
@pytest.mark.parametrize("value", ["0", '"big"', str(10**20)])
def test_containment_keys_must_be_positive_integers(
    tmp_path: Path, key: str, top: int, value: str
) -> None:
    """A limit of 0, a non-number or one no system call takes is refused, naming the key."""
    path = pyproject(tmp_path, f"[tool.harness]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: [tool.harness].{key}: must be an integer from 1 to {top}"


@pytest.mark.parametrize("key", ["max_fixture_bytes", "max_nesting", "max_fixtures"])
def test_size_keys_are_bounded(tmp_path: Path, key: str) -> None:
    """10**20 is refused with the bound, not carried into a comparison or a system call."""
    path = pyproject(tmp_path, f"[tool.harness]\n{key} = {10**20}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"{path}: [tool.harness].{key}: expected an integer <= {2**40}"

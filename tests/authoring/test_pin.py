"""Where the harness was installed from, read from its PEP 610 record, as a requirement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.authoring.pin import installed_pin, pin_from_direct_url
from harness.version import __version__

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def record(**fields: object) -> str:
    return json.dumps(fields)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A project folder inside a git work tree (a `.git` folder marks it)."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "agent").mkdir()
    return tmp_path / "repo" / "agent"


def test_no_record_means_the_release_on_the_index() -> None:
    """An index install writes no direct_url.json: the pin is this version."""
    pin = pin_from_direct_url(None, ".")
    assert (pin.requirement, pin.warning) == (f"replay-harness=={__version__}", None)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"url": "https://example.com/h.git", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
            f"replay-harness @ git+https://example.com/h.git@{COMMIT}",
        ),
        (
            {
                "url": "https://example.com/mono.git",
                "vcs_info": {"vcs": "git", "commit_id": COMMIT, "requested_revision": "main"},
                "subdirectory": "harness",
            },
            f"replay-harness @ git+https://example.com/mono.git@{COMMIT}#subdirectory=harness",
        ),
        (
            {
                "url": "https://example.com/replay_harness-0.1.0-py3-none-any.whl",
                "archive_info": {},
            },
            "replay-harness @ https://example.com/replay_harness-0.1.0-py3-none-any.whl",
        ),
    ],
    ids=["git-commit", "git-subdirectory", "remote-archive"],
)
def test_a_url_install_is_pinned_to_that_url(fields: dict[str, object], expected: str) -> None:
    """A VCS install keeps the commit it resolved to, never the branch that was asked for."""
    pin = pin_from_direct_url(record(**fields), ".")
    assert (pin.requirement, pin.warning) == (expected, None)


def test_a_folder_inside_the_repository_is_written_relative(repository: Path) -> None:
    """A vendored checkout or a wheel in the repository: a path CI has after checkout."""
    vendored = repository.parent / "vendor" / "harness"
    vendored.mkdir(parents=True)
    pin = pin_from_direct_url(record(url=vendored.as_uri(), dir_info={}), str(repository))
    assert (pin.requirement, pin.warning) == ("../vendor/harness", None)
    wheel = repository / "dist" / "replay_harness-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"")
    pin = pin_from_direct_url(record(url=wheel.as_uri(), archive_info={}), str(repository))
    assert pin.requirement == "./dist/replay_harness-0.1.0-py3-none-any.whl"


def test_a_folder_outside_the_repository_is_absolute_and_warned_about(
    repository: Path, tmp_path: Path
) -> None:
    """CI cannot reach it: the pin says where it is, and the warning says what to do."""
    outside = tmp_path / "checkout"
    outside.mkdir()
    pin = pin_from_direct_url(
        record(url=outside.as_uri(), dir_info={"editable": True}), str(repository)
    )
    assert pin.requirement == str(outside)
    assert pin.warning is not None
    assert f"installed from {outside}, outside this repository" in pin.warning
    assert "--harness REQUIREMENT" in pin.warning


@pytest.mark.parametrize("text", ["{not json", "[]", '{"url": ""}'], ids=str)
def test_an_unreadable_record_falls_back_to_the_index_with_a_warning(text: str) -> None:
    """A damaged record is said, not silently trusted."""
    pin = pin_from_direct_url(text, ".")
    assert pin.requirement == f"replay-harness=={__version__}"
    assert pin.warning is not None
    assert "direct_url.json is unreadable" in pin.warning


def test_this_installation_is_read_from_its_own_metadata(tmp_path: Path) -> None:
    """The tests run an editable install of this checkout: the pin is the checkout's path."""
    checkout = Path(__file__).resolve().parents[2]
    pin = installed_pin(str(tmp_path))
    assert Path(pin.requirement) == checkout
    assert pin.warning is not None

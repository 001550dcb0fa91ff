"""The repository's noxfile: what its sessions refuse before they run anything."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def noxfile() -> ModuleType:
    spec = importlib.util.spec_from_file_location("harness_repo_noxfile", REPO / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.pop(spec.name, None)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("posargs", "environ", "expected"),
    [
        (["2/4"], {}, "2/4"),
        ([" 1 / 3 "], {}, "1/3"),
        ([], {"CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "5"}, "3/5"),
        (["auto"], {"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "2"}, "1/2"),
        ([], {}, None),  # was `regression--of-.json`
        (["auto"], {"CI_NODE_INDEX": "1"}, None),
        (["5/4"], {}, None),
        (["0/4"], {}, None),
        (["two"], {}, None),
        (["1/2", "extra"], {}, None),
    ],
)
def test_the_shard_session_needs_a_real_shard(
    noxfile: ModuleType, posargs: list[str], environ: dict[str, str], expected: str | None
) -> None:
    """No argument and no CI variables, or a malformed one, is refused (with the usage line)."""
    assert noxfile.shard_spec(posargs, environ) == expected


def test_the_shard_session_refuses_with_its_usage_line(noxfile: ModuleType) -> None:
    class Refused(Exception):
        pass

    class Session:
        posargs: tuple[str, ...] = ()

        def error(self, message: str) -> None:
            raise Refused(message)

        def install(self, *args: str) -> None:
            raise AssertionError("nothing is installed before the shard is known")

        run = install

    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("CI_NODE_INDEX", raising=False)
        patch.delenv("CI_NODE_TOTAL", raising=False)
        with pytest.raises(Refused, match=r"^usage: nox -s shard -- I/N"):
            noxfile.shard.func(Session())

"""Where this harness was installed from, as the requirement a project's sessions install.

pip and uv record a direct install in the distribution's `direct_url.json` (PEP 610): a VCS URL
with the commit it resolved to, a local folder, or an archive (a wheel, an sdist). An install
from a package index leaves no such record, so the pin is the release's version.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import metadata
from typing import Any
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from harness.version import DISTRIBUTION, __version__

__all__ = ["Pin", "installed_pin", "pin_from_direct_url"]


@dataclass(frozen=True, kw_only=True)
class Pin:
    """The harness requirement a project's sessions install, and why CI may not reach it."""

    requirement: str
    """A pip requirement: `replay-harness @ git+URL@COMMIT`, a path, or `replay-harness==V`."""
    warning: str | None = None
    """Set when the requirement is a path outside the project's repository."""


def installed_pin(root: str) -> Pin:
    """The requirement this running harness was installed from, seen from project `root`."""
    try:
        record = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        record = None
    return pin_from_direct_url(record, root)


def pin_from_direct_url(record: str | None, root: str) -> Pin:
    """The pin a `direct_url.json` text (None: none was recorded) gives, seen from `root`."""
    index = Pin(requirement=f"{DISTRIBUTION}=={__version__}")
    if record is None:
        return index
    try:
        data: Any = json.loads(record)
    except ValueError:
        data = None
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str) or not url:
        unreadable = "its direct_url.json is unreadable, so the release on the package index"
        return Pin(requirement=index.requirement, warning=f"{DISTRIBUTION}: {unreadable}")
    fragment = ""
    if isinstance(data.get("subdirectory"), str):
        fragment = f"#subdirectory={data['subdirectory']}"
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
        commit = vcs.get("commit_id")
        at = f"@{commit}" if isinstance(commit, str) and commit else ""
        return Pin(requirement=f"{DISTRIBUTION} @ {vcs['vcs']}+{url}{at}{fragment}")
    parts = urlsplit(url)
    if parts.scheme != "file":
        return Pin(requirement=f"{DISTRIBUTION} @ {url}{fragment}")
    return _local(url2pathname(unquote(parts.path)), root)


def _local(path: str, root: str) -> Pin:
    """A folder or archive: relative to `root` inside its repository, else absolute."""
    path, root = os.path.realpath(path), os.path.realpath(root)
    repository = _repository(root)
    if os.path.commonpath([path, repository]) == repository:
        relative = os.path.relpath(path, root).replace(os.sep, "/")
        return Pin(
            requirement=relative
            if relative == "." or relative.startswith("../")
            else f"./{relative}"
        )
    warning = (
        f"the harness was installed from {path}, outside this repository, where CI cannot "
        "install it from: run init with --harness REQUIREMENT (a git URL with a commit, "
        "a release), or install the harness from such a place first"
    )
    return Pin(requirement=path, warning=warning)


def _repository(root: str) -> str:
    """The git work tree `root` is in, or `root` itself when it is in none."""
    folder = root
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return root
        folder = parent

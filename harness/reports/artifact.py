"""Writing report files atomically: a reader sees the old file or the new one, never half."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

from harness.errors import ArtifactError

__all__ = ["write_atomic"]


def write_atomic(path: str, data: bytes | Iterable[bytes]) -> None:
    """Write `data` (bytes, or pieces of it) to `path` through a temp file, then rename it.

    Missing parent folders are created. On failure the temp file is removed and any previous
    file at `path` is left as it was.

    Raises:
        ArtifactError: The file could not be written.
    """
    import tempfile  # most runs write no artifact

    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except OSError as exc:
        raise ArtifactError(path, exc.strerror or str(exc)) from None
    try:
        with os.fdopen(fd, "wb") as file:
            if isinstance(data, bytes):
                file.write(data)
            else:
                file.writelines(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise ArtifactError(path, exc.strerror or str(exc)) from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

"""Delivering files to the local output folder (``SEVDESK_OUTPUT_DIR``).

A delivery is always a new file: created exclusively (never overwriting, never following a
symlink), mode 0600, with a name reduced to ``[A-Za-z0-9._-]`` so that text from sevDesk cannot
steer the path. If the name is taken, ``-1``, ``-2``, … is appended.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

MAX_ATTEMPTS: Final = 100
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """:returns: ``name`` without any path and with only safe characters (never empty)."""
    base = _UNSAFE.sub("_", name.replace("\\", "/").rsplit("/", 1)[-1]).strip("._")
    return base or "file"


def deliver(directory: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to a new file in ``directory``.

    :returns: the path written.
    :raises OSError: if the folder is not writable or no free name was found.
    """
    stem, dot, suffix = safe_name(name).rpartition(".")
    stem, suffix = (stem, f".{suffix}") if dot else (suffix, "")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for attempt in range(MAX_ATTEMPTS):
        path = directory / (f"{stem}{suffix}" if attempt == 0 else f"{stem}-{attempt}{suffix}")
        try:
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return path
    raise FileExistsError(f"no free file name for {stem}{suffix} in the output folder")

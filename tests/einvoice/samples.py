"""The shared e-invoice samples (read from the shared folder, never copied into the project)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Final

import pytest

SHARED: Final = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "einvoice"
MANIFEST: Final = SHARED / "MANIFEST.tsv"
REASON: Final = (
    "the shared e-invoice samples (../shared/fixtures/einvoice with MANIFEST.tsv) are not "
    "present next to the project checkout"
)


def rows() -> list[dict[str, str]]:
    """:returns: the manifest's rows, or none when the samples are absent."""
    if not MANIFEST.is_file():
        return []
    with MANIFEST.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def need_samples() -> None:
    """Skip the calling test, naming why, when the shared samples are absent."""
    if not MANIFEST.is_file():
        pytest.skip(REASON)


def sample(name: str) -> bytes:
    """:returns: the bytes of one shared sample (the test skips when they are absent)."""
    need_samples()
    return (SHARED / name).read_bytes()

"""``scripts/packaging/build_release.sh``: what it writes is what its ``# artefacts:`` line says.

The release workflow and ``scripts/ci_packaging.sh`` both run that script; with
``PACKAGING_DIST`` (its output, from ``scripts/ci_packaging.sh``) every glob of the line matches
a file, every file matches a glob, and ``SHA256SUMS`` holds the right hash of every other file.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from pathlib import Path

from tests.packaging.conftest import ROOT

SCRIPT = (ROOT / "scripts" / "packaging" / "build_release.sh").read_text()
(LINE,) = re.findall(r"^# artefacts: (.+)$", SCRIPT, flags=re.MULTILINE)
GLOBS = LINE.split()


def test_the_artefacts_line_names_the_release_files() -> None:
    assert "SHA256SUMS" in GLOBS and "requirements.lock" in GLOBS
    assert any(g.endswith(".whl") for g in GLOBS) and any(g.endswith(".mcpb") for g in GLOBS)
    assert any(g.endswith(".cdx.json") for g in GLOBS)


def test_the_ci_builds_its_artefacts_with_this_script() -> None:
    ci = (ROOT / "scripts" / "ci_packaging.sh").read_text()
    assert "sh scripts/packaging/build_release.sh dist\n" in ci


def test_dist_holds_exactly_the_listed_artefacts(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    for glob in GLOBS:
        assert fnmatch.filter(names, glob), f"nothing in {dist} matches {glob}"
    for name in names:
        assert any(fnmatch.fnmatch(name, g) for g in GLOBS), f"{name} is not in the artefacts line"


def test_the_checksums_cover_every_other_artefact(dist: Path) -> None:
    sums: dict[str, str] = {}
    for line in (dist / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(None, 1)
        sums[name] = digest
    others = {p.name for p in dist.iterdir() if p.name != "SHA256SUMS"}
    assert set(sums) == others
    for name, digest in sums.items():
        assert hashlib.sha256((dist / name).read_bytes()).hexdigest() == digest, name

"""Every figure of size and count that README.md, README.de.md, SECURITY.md and docs/ state about
the artefacts is measured.

Each claim is read from its text by a marked phrase and compared with what it describes: the
dependency counts with SECURITY.md's tables and ``pyproject.toml`` (always), the installed tree
with the fresh install of the wheel (``PACKAGING_RUNTIME_VENV``) and the image's size with the
built image (``PACKAGING_IMAGE``), both provided by ``scripts/ci_packaging.sh`` and skipped
without it. Sizes may differ by 5 % from the measurement; counts must be exact. A figure of that
kind written without one of the marked phrases fails the last test, so no claim goes unmeasured.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.packaging.conftest import ROOT
from tests.packaging.support import HANG_GUARD_S
from tests.packaging.test_dependencies import DIRECT, TRANSITIVE, as_documented

TOLERANCE = 0.05
DOCUMENTS = ["README.md", "README.de.md", "SECURITY.md", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")
)]  # fmt: skip
# the environment the tree figures are stated for: Linux, CPython 3.11 (the image's Python)
LINUX_311 = {
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_python_implementation": "CPython",
    "python_version": "3.11",
    "python_full_version": "3.11.7",
    "implementation_name": "cpython",
    "os_name": "posix",
}
LINUX_312 = LINUX_311 | {"python_version": "3.12", "python_full_version": "3.12.0"}

IMAGE_SIZE = re.compile(r"Size:\s+about (\d+) MB as CI builds it")
IMAGE_GOAL = re.compile(r"goal: under\s+(\d+)\s+MB\)")
DIRECT_COUNT = re.compile(r"(\d+) direct runtime dependencies \((\d+) with `tzdata` on Windows\)")
TREE_COUNT = re.compile(r"is \*\*(\d+) distributions\*\* \(this package included\)")
TREE_SIZE = re.compile(r"\*\*(\d+) MB\*\* on disk")
FEWER_ON_312 = re.compile(r"on Python 3\.12 and\s+newer (\d+) fewer")
MARKED = [IMAGE_SIZE, IMAGE_GOAL, DIRECT_COUNT, TREE_COUNT, TREE_SIZE, FEWER_ON_312]


def text(name: str) -> str:
    return (ROOT / name).read_text()


def claim(pattern: re.Pattern[str], name: str) -> tuple[int, ...]:
    """:returns: the figures of the one phrase ``pattern`` marks in ``name``; fails without it."""
    found = pattern.findall(text(name))
    assert len(found) == 1, f"{name}: expected one phrase matching {pattern.pattern!r}"
    values = found[0] if isinstance(found[0], tuple) else (found[0],)
    return tuple(int(v) for v in values)


def within(stated_mb: int, measured_bytes: int) -> bool:
    return abs(stated_mb * 1_000_000 - measured_bytes) <= TOLERANCE * measured_bytes


def tree_from_tables(environment: dict[str, str]) -> int:
    """:returns: how many distributions SECURITY.md's tables say a fresh install brings in
    ``environment``, this package included."""
    rows = (DIRECT | TRANSITIVE).values()
    return 1 + sum(1 for row in rows if row.marker is None or row.marker.evaluate(environment))


def test_the_direct_dependency_count_is_the_tables_and_pyprojects() -> None:
    everywhere, with_windows = claim(DIRECT_COUNT, "SECURITY.md")
    declared = as_documented(tomllib.loads(text("pyproject.toml"))["project"]["dependencies"])
    assert with_windows == len(declared) == len(DIRECT)
    assert everywhere == sum(1 for row in DIRECT.values() if row.marker is None)
    assert DIRECT["tzdata"].marker is not None and everywhere == with_windows - 1


def test_the_tree_counts_are_what_the_tables_bring() -> None:
    (count,) = claim(TREE_COUNT, "SECURITY.md")
    (fewer,) = claim(FEWER_ON_312, "SECURITY.md")
    assert count == tree_from_tables(LINUX_311)
    assert fewer == tree_from_tables(LINUX_311) - tree_from_tables(LINUX_312)


SITE = """
import json, sysconfig
print(json.dumps({"site": sysconfig.get_paths()["purelib"],
                  "platform": __import__("sys").platform,
                  "python": "%d.%d" % __import__("sys").version_info[:2]}))
"""
INSTALLED = """
from importlib.metadata import distributions
print(len({d.metadata["Name"].lower() for d in distributions()}))
"""


def runtime_python(runtime_venv: Path, code: str) -> str:
    return subprocess.run(
        [str(runtime_venv / "bin" / "python"), "-I", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_GUARD_S,
    ).stdout


def test_the_installed_tree_is_as_many_distributions_and_megabytes_as_stated(
    runtime_venv: Path,
) -> None:
    where = json.loads(runtime_python(runtime_venv, SITE))
    if (where["platform"], where["python"]) != ("linux", "3.11"):
        pytest.skip(f"the figures are for Linux and Python 3.11; this venv is {where}")
    (count,) = claim(TREE_COUNT, "SECURITY.md")
    (size,) = claim(TREE_SIZE, "SECURITY.md")
    installed = int(runtime_python(runtime_venv, INSTALLED))
    on_disk = sum(f.stat().st_size for f in Path(where["site"]).rglob("*") if f.is_file())
    print(f"runtime tree: {installed} distributions, {on_disk / 1e6:.1f} MB")
    assert installed == count, f"SECURITY.md says {count} distributions, installed {installed}"
    assert within(size, on_disk), f"SECURITY.md says {size} MB, measured {on_disk / 1e6:.1f} MB"


def test_the_image_is_as_large_as_the_readme_says(image: str) -> None:
    (size,) = claim(IMAGE_SIZE, "README.md")
    (goal,) = claim(IMAGE_GOAL, "README.md")
    measured = int(
        subprocess.run(
            ["podman", "image", "inspect", "--format", "{{.Size}}", image],
            capture_output=True,
            text=True,
            check=True,
            timeout=HANG_GUARD_S,
        ).stdout
    )
    print(f"image {image}: {measured / 1e6:.1f} MB")
    assert within(size, measured), f"README.md says about {size} MB, measured {measured / 1e6:.1f}"
    assert measured < goal * 1_000_000


# a line about an artefact that states a size or a count of dependencies/packages
ABOUT_ARTEFACT = re.compile(
    r"\b(image|wheel|sdist|bundle|\.mcpb|runtime dependenc\w*|distributions|install(ed)? tree)\b",
    re.IGNORECASE,
)
FIGURE = re.compile(
    r"\b\d+(\.\d+)?\s?(MB|MiB|KB|KiB|kB|GB)\b"
    r"|\b\d+\s+(direct\s+|runtime\s+)*(dependencies|packages|distributions)\b"
    r"|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
    r"(direct\s+|runtime\s+)*(dependencies|packages|distributions)\b",
    re.IGNORECASE,
)


def unmarked_figures(name: str) -> list[str]:
    """:returns: the paragraphs of ``name`` that state a figure about an artefact outside every
    marked phrase (the marked phrases removed first)."""
    body = text(name)
    for pattern in MARKED:
        body = pattern.sub("", body)
    paragraphs = re.split(r"\n\s*\n|\n(?=\s*[-|#])", body)
    return [
        " ".join(p.split())[:160]
        for p in paragraphs
        if ABOUT_ARTEFACT.search(p) and FIGURE.search(p) and "RSS" not in p
    ]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_no_figure_about_an_artefact_goes_unmeasured(name: str) -> None:
    assert unmarked_figures(name) == [], (
        f"{name}: a size or count of an artefact that tests/packaging/test_claims.py does not "
        "measure; write it with one of its marked phrases or add a measurement"
    )


def test_an_unmarked_figure_would_be_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planted = "The image is 72 MB.\n\nSeven runtime dependencies, each with a reason.\n"
    monkeypatch.setattr(f"{__name__}.text", lambda name: planted)
    assert len(unmarked_figures("planted.md")) == 2

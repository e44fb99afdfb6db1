"""The runtime dependency set is exactly the one SECURITY.md documents.

Three sources are compared with SECURITY.md's two tables: ``pyproject.toml`` (always), the built
wheel's metadata, and what a fresh install of the wheel brought, with the SBOM made of it (those
need ``PACKAGING_DIST`` and ``PACKAGING_RUNTIME_VENV``). Names and version ranges must match:
a package that appears, goes away or changes its range fails here, and SECURITY.md is updated
with the reason.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
import zipfile
from dataclasses import dataclass
from email.parser import Parser
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from tests.packaging.conftest import ROOT
from tests.packaging.support import load_script

PROJECT = "mcp-server-sevdesk"
_ROW = re.compile(r"^\| `([^`]+)` \| (`[^`]*`|any) \| (`[^`]*`)? *\|")


normalise = load_script("pep503").normalise


@dataclass(frozen=True)
class Documented:
    name: str
    specifier: SpecifierSet
    marker: Marker | None

    def applies(self) -> bool:
        return self.marker is None or self.marker.evaluate()


def documented(section: str) -> dict[str, Documented]:
    """:returns: the rows of the SECURITY.md table under the heading ``section``."""
    text = (ROOT / "SECURITY.md").read_text()
    body = text.split(f"### {section}\n", 1)[1].split("\n#", 1)[0]
    rows: dict[str, Documented] = {}
    for line in body.splitlines():
        match = _ROW.match(line)
        if match:
            name, spec, marker = match.groups()
            rows[normalise(name)] = Documented(
                normalise(name),
                SpecifierSet("" if spec == "any" else spec.strip("`")),
                Marker(marker.strip("`")) if marker else None,
            )
    assert rows, f"no table under '### {section}' in SECURITY.md"
    return rows


DIRECT = documented("Direct runtime dependencies")
TRANSITIVE = documented("Packages they bring")
REDIS = documented("The redis extra")


def as_documented(requirements: list[str]) -> dict[str, Documented]:
    out: dict[str, Documented] = {}
    for text in requirements:
        req = Requirement(text)
        if req.marker is not None and "extra" in str(req.marker):
            continue
        out[normalise(req.name)] = Documented(normalise(req.name), req.specifier, req.marker)
    return out


def test_pyproject_declares_exactly_the_documented_direct_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert as_documented(project["dependencies"]) == DIRECT


def test_no_package_is_documented_twice() -> None:
    assert not set(DIRECT) & set(TRANSITIVE)
    assert not (set(DIRECT) | set(TRANSITIVE)) & set(REDIS)


def test_every_row_says_why_the_package_is_there() -> None:
    text = (ROOT / "SECURITY.md").read_text()
    for section, columns in (
        ("Direct runtime dependencies", 4),
        ("Packages they bring", 5),
        ("The redis extra", 5),
    ):
        body = text.split(f"### {section}\n", 1)[1].split("\n#", 1)[0]
        for line in body.splitlines():
            if _ROW.match(line):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                assert len(cells) == columns and len(cells[-1].split()) >= 4, (section, line)


def test_the_redis_extra_is_the_documented_table() -> None:
    """The extra's own requirements, and what the installed ``redis`` asks for outside its own
    extras, are exactly the rows of SECURITY.md's redis table (names, ranges and markers)."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = as_documented(extra["optional-dependencies"]["redis"])
    asked = as_documented(
        [r for r in metadata.requires("redis") or [] if "extra ==" not in r.replace("'", '"')]
    )
    assert declared | asked == REDIS
    assert not set(declared) & set(asked)


def test_the_wheel_metadata_declares_exactly_the_documented_dependencies(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(name).decode())
    assert as_documented(metadata.get_all("Requires-Dist") or []) == DIRECT


INSTALLED = """
import json
from importlib.metadata import distributions
print(json.dumps({d.metadata["Name"]: [d.version, d.requires or []] for d in distributions()}))
"""


def installed(runtime_venv: Path) -> dict[str, tuple[str, list[Requirement]]]:
    """:returns: name -> (version, requirements) of every package in the runtime venv."""
    proc = subprocess.run(
        [str(runtime_venv / "bin" / "python"), "-I", "-c", INSTALLED],
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        normalise(name): (version, [Requirement(r) for r in requires])
        for name, (version, requires) in json.loads(proc.stdout).items()
    }


def test_a_fresh_install_brings_exactly_the_documented_packages(runtime_venv: Path) -> None:
    packages = installed(runtime_venv)
    expected = {n for n, d in (DIRECT | TRANSITIVE).items() if d.applies()} | {PROJECT}
    assert set(packages) == expected, (
        f"not documented in SECURITY.md: {sorted(set(packages) - expected)}; "
        f"documented but not installed: {sorted(expected - set(packages))}"
    )
    for name, row in DIRECT.items():
        if row.applies():
            assert packages[name][0] in row.specifier, (name, packages[name][0])


def test_the_brought_packages_have_the_documented_ranges(runtime_venv: Path) -> None:
    packages = installed(runtime_venv)
    asked: dict[str, list[str]] = {}
    for parent, (_, requires) in packages.items():
        if parent == PROJECT:
            continue
        for req in requires:
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            if normalise(req.name) in TRANSITIVE:
                asked.setdefault(normalise(req.name), []).extend(str(s) for s in req.specifier)
    for name, row in TRANSITIVE.items():
        if row.applies():
            assert SpecifierSet(",".join(asked.get(name, []))) == row.specifier, name
            assert packages[name][0] in row.specifier, (name, packages[name][0])


def test_every_sbom_lists_exactly_the_installed_packages(dist: Path, runtime_venv: Path) -> None:
    # one per artefact but the image's, which lists the image's venv without keyring's tree
    # (ADR 0020): tests/packaging/test_image.py compares it with the image
    sbom_files = sorted(set(dist.glob("*.cdx.json")) - set(dist.glob("*-image.cdx.json")))
    assert sbom_files, f"no *.cdx.json in {dist}"
    packages = {name: version for name, (version, _) in installed(runtime_venv).items()}
    packages.pop(PROJECT)
    for sbom_file in sbom_files:
        sbom = json.loads(sbom_file.read_text())
        assert sbom["bomFormat"] == "CycloneDX", sbom_file.name
        components = {normalise(c["name"]): c["version"] for c in sbom["components"]}
        components.pop(PROJECT, None)  # listed as a component or as the SBOM's subject
        assert components == packages, sbom_file.name

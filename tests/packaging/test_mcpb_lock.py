"""The Claude Desktop bundle installs the locked versions (issue 41).

``scripts/packaging/build_mcpb.py`` writes a ``uv.lock`` into the bundle, pinned to the versions
of ``requirements.lock``, and the manifest runs ``uv run --frozen``: uv installs what the lock
says, each file checked against its hash there, and never re-resolves. The manifest test runs
always; the bundle test needs ``PACKAGING_DIST`` (the bundle and ``requirements.lock``) and
``PACKAGING_UV``: it unpacks the bundle, runs the manifest's own command with ``python`` in place
of the entry point (so uv sets the environment up exactly as for Claude Desktop) and compares
what got installed with both locks.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement

from tests.packaging.conftest import ROOT
from tests.packaging.support import HANG_GUARD_S, base_environment, load_script

MANIFEST = json.loads((ROOT / "mcpb" / "manifest.json").read_text())
CHECK, BUILD = load_script("check_sbom"), load_script("build_mcpb")


def applies_here(requirement: str) -> bool:
    """:returns: whether the marker of ``requirement`` holds on this machine (uv's ``python3``
    is this interpreter's version, ``UV_PYTHON`` in ``uv_env``)."""
    marker = Requirement(requirement).marker
    return marker is None or marker.evaluate()


def test_the_manifest_runs_uv_from_the_lock_without_resolving() -> None:
    config = MANIFEST["server"]["mcp_config"]
    assert config["command"] == "uv"
    assert config["args"][:2] == ["run", "--frozen"]
    assert "--locked" not in config["args"] and "--upgrade" not in config["args"]


def test_the_bundle_installs_exactly_the_locked_versions(
    dist: Path, uv: Path, uv_env: dict[str, str], tmp_path: Path
) -> None:
    folder = tmp_path / "bundle"
    with zipfile.ZipFile(dist / "mcp-server-sevdesk.mcpb") as bundle:
        bundle.extractall(folder)
    packages = tomllib.loads((folder / "uv.lock").read_text())["package"]
    from_index = [p for p in packages if "registry" in p.get("source", {})]
    for package in from_index:  # every file uv may fetch has its hash in the lock
        files = [*package.get("wheels", []), *([package["sdist"]] if "sdist" in package else [])]
        assert files and all(f["hash"].startswith("sha256:") for f in files), package["name"]
    uv_locked = {CHECK.normalise(p["name"]): p["version"] for p in packages}
    pinned = BUILD.pins(dist / "requirements.lock")
    args = [
        a.replace("${__dirname}", str(folder)) for a in MANIFEST["server"]["mcp_config"]["args"]
    ]
    entry = args.index(MANIFEST["server"]["entry_point"])
    command = [str(uv), *args[:entry], "python", "-I", "-c", CHECK.TREE]
    proc = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=base_environment(**uv_env),
        check=False,
        timeout=HANG_GUARD_S * 3,
    )
    assert proc.returncode == 0, proc.stderr
    installed = {CHECK.normalise(k): v for k, v in json.loads(proc.stdout).items()}
    assert installed.pop("mcp-server-sevdesk") == MANIFEST["version"]
    applies = {name for name, (_, req) in pinned.items() if applies_here(req)}
    assert set(installed) == applies, sorted(set(installed) ^ applies)
    for name, version in installed.items():
        assert version == uv_locked[name] == pinned[name][0], name

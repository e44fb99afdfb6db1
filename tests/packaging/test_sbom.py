"""``scripts/packaging/sbom.py`` and ``check_sbom.py``: SBOM hashes and the check against the tree.

Synthetic inputs only (no network, no build): a tiny lock, a pip install report, a CycloneDX
document and an installed tree of ``.dist-info`` folders. Each planted mismatch (a version
changed, a hash changed, a component missing or added, the root's version wrong) must fail the
check. ``scripts/packaging/build_release.sh`` runs the same check on the real SBOMs.
"""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.packaging.conftest import ROOT, artifact
from tests.packaging.support import load_script

A_HASH, A_OTHER, B_HASH = "a" * 64, "c" * 64, "b" * 64
LOCK = f"""\
anyio==4.16.0 \\
    --hash=sha256:{A_HASH} \\
    --hash=sha256:{A_OTHER}
    # via mcp-server-sevdesk (pyproject.toml)
jeepney==0.9.0 ; sys_platform == 'linux' \\
    --hash=sha256:{B_HASH}
    # via secretstorage
"""
REPORT = {
    "version": "1",
    "install": [
        {
            "metadata": {"name": "anyio", "version": "4.16.0"},
            "download_info": {"archive_info": {"hashes": {"sha256": A_HASH}}},
        },
        {
            "metadata": {"name": "Jeepney", "version": "0.9.0"},
            "download_info": {"archive_info": {"hashes": {"sha256": B_HASH}}},
        },
    ],
}
BASE: dict[str, Any] = {
    "bomFormat": "CycloneDX",
    "specVersion": "1.6",
    "metadata": {"component": {"bom-ref": "root-component", "name": "mcp-server-sevdesk"}},
    "components": [
        {"name": "anyio", "version": "4.16.0", "type": "library"},
        {"name": "jeepney", "version": "0.9.0", "type": "library"},
    ],
}
INSTALLED = {"mcp-server-sevdesk": "1.0.0", "anyio": "4.16.0", "jeepney": "0.9.0"}


SBOM, CHECK = load_script("sbom"), load_script("check_sbom")


def completed() -> dict[str, Any]:
    return SBOM.complete(copy.deepcopy(BASE), SBOM.installed_hashes(REPORT), "1.0.0")


def check(sbom: dict[str, Any], installed: dict[str, str] | None = None) -> list[str]:
    tree = INSTALLED if installed is None else installed
    return CHECK.problems(sbom, tree, CHECK.parse_lock(LOCK), "1.0.0")


def test_every_component_gets_the_hash_of_the_installed_file_and_the_root_its_version() -> None:
    sbom = completed()
    hashes = {c["name"]: c["hashes"] for c in sbom["components"]}
    assert hashes == {
        "anyio": [{"alg": "SHA-256", "content": A_HASH}],
        "jeepney": [{"alg": "SHA-256", "content": B_HASH}],
    }
    root = sbom["metadata"]["component"]
    assert (root["version"], root["purl"]) == ("1.0.0", "pkg:pypi/mcp-server-sevdesk@1.0.0")
    assert check(sbom) == []


def test_a_component_the_report_has_no_hash_for_is_refused() -> None:
    base = copy.deepcopy(BASE)
    base["components"][0]["version"] = "4.15.0"
    with pytest.raises(SystemExit, match=r"no sha256 for anyio==4\.15\.0"):
        SBOM.complete(base, SBOM.installed_hashes(REPORT), "1.0.0")


def test_the_artefact_is_named_and_hashed_on_the_root(tmp_path: Path) -> None:
    artefact = tmp_path / "mcp-server-sevdesk.mcpb"
    artefact.write_bytes(b"bundle")
    root = SBOM.describe_artefact(completed(), artefact)["metadata"]["component"]
    assert root["hashes"] == [{"alg": "SHA-256", "content": hashlib.sha256(b"bundle").hexdigest()}]
    assert root["properties"] == [{"name": "mcp-server-sevdesk:artefact", "value": artefact.name}]


def test_the_lock_is_parsed_with_every_hash_of_a_pin() -> None:
    assert CHECK.parse_lock(LOCK) == {
        "anyio": ("4.16.0", frozenset({A_HASH, A_OTHER})),
        "jeepney": ("0.9.0", frozenset({B_HASH})),
    }


def test_a_changed_version_fails() -> None:
    sbom = completed()
    sbom["components"][0]["version"] = "4.15.0"
    assert check(sbom) == ["anyio: the SBOM says 4.15.0, 4.16.0 is installed"]


def test_a_changed_hash_fails() -> None:
    sbom = completed()
    sbom["components"][1]["hashes"][0]["content"] = "d" * 64
    assert check(sbom) == [f"jeepney==0.9.0: SHA-256 {'d' * 64} is none of the lock's files"]


def test_another_file_of_the_locked_release_passes_but_no_hash_fails() -> None:
    sbom = completed()
    sbom["components"][0]["hashes"][0]["content"] = A_OTHER  # a wheel for another platform
    assert check(sbom) == []
    del sbom["components"][0]["hashes"]
    assert check(sbom) == ["anyio==4.16.0: 0 SHA-256 hashes in the SBOM, not one"]


def test_a_missing_and_an_extra_component_fail() -> None:
    sbom = completed()
    del sbom["components"][1]
    assert check(sbom) == ["jeepney==0.9.0 is installed but not in the SBOM"]
    sbom = completed()
    sbom["components"].append({"name": "idna", "version": "3.20"})
    assert check(sbom) == ["idna==3.20 is in the SBOM but not installed"]
    sbom = completed()
    sbom["components"].append(copy.deepcopy(sbom["components"][0]))
    assert check(sbom) == ["anyio is listed twice in the SBOM"]


def test_a_version_off_the_lock_fails() -> None:
    sbom = completed()
    sbom["components"][0]["version"] = "4.15.0"
    installed = INSTALLED | {"anyio": "4.15.0"}
    assert check(sbom, installed) == ["anyio: the lock pins 4.16.0, 4.15.0 is installed"]


def test_the_root_must_have_the_version_installed() -> None:
    sbom = copy.deepcopy(BASE)
    assert "the root component has version None, not 1.0.0" in check(sbom)
    assert check(completed(), INSTALLED | {"mcp-server-sevdesk": "0.9.0"}) == [
        "mcp-server-sevdesk '0.9.0' is installed, not 1.0.0"
    ]


def dist_info(site: Path, name: str, version: str) -> None:
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True)
    (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def test_the_installed_tree_is_read_with_normalised_names(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    dist_info(site, "mcp-server-sevdesk", "1.0.0")
    dist_info(site, "anyio", "4.16.0")
    dist_info(site, "Jeepney", "0.9.0")
    tree = CHECK.tree([sys.executable, "-I", "-c", CHECK.TREE, str(site)])
    assert tree == INSTALLED
    assert check(completed(), tree) == []
    dist_info(site, "idna", "3.20")  # installed, not in the SBOM
    assert check(completed(), CHECK.tree([sys.executable, "-I", "-c", CHECK.TREE, str(site)])) == [
        "idna==3.20 is installed but not in the SBOM"
    ]


def test_the_command_line_fails_with_one_line_per_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sbom = completed()
    sbom["components"][0]["version"] = "4.15.0"
    assert CHECK.main(command_line(tmp_path, sbom), validate=lambda text: []) == 1
    assert "x.cdx.json: anyio: the SBOM says 4.15.0, 4.16.0 is installed" in capsys.readouterr().err


def command_line(tmp_path: Path, sbom: dict[str, Any]) -> list[str]:
    """:returns: the arguments of ``check_sbom.py`` for ``sbom``, the lock and a fake tree."""
    (tmp_path / "x.cdx.json").write_text(json.dumps(sbom))
    (tmp_path / "requirements.lock").write_text(LOCK)
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\necho '{json.dumps(INSTALLED)}'\n")
    python.chmod(0o755)
    return [str(tmp_path / "x.cdx.json"), str(tmp_path / "requirements.lock"), str(python), "1.0.0"]


def test_a_schema_error_fails_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str] = []

    def validate(text: str) -> list[str]:
        seen.append(text)
        return ["not valid CycloneDX 1.6: planted"]

    assert CHECK.main(command_line(tmp_path, completed()), validate=validate) == 1
    assert json.loads(seen[0]) == completed()
    assert "x.cdx.json: not valid CycloneDX 1.6: planted" in capsys.readouterr().err


def test_without_the_cyclonedx_library_the_command_line_fails_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(name: str) -> None:
        raise ImportError(f"No module named {name.split('.', maxsplit=1)[0]!r}")

    monkeypatch.setattr(CHECK.importlib, "import_module", missing)
    with pytest.raises(SystemExit) as failed:
        CHECK.main(command_line(tmp_path, completed()))
    message = str(failed.value)
    assert "\n" not in message
    assert "No module named 'cyclonedx'" in message and "tools.lock" in message


def test_the_build_tools_validate_against_the_cyclonedx_schema(tmp_path: Path) -> None:
    build_python = artifact("PACKAGING_BUILD_PYTHON")
    script = str(ROOT / "scripts" / "packaging" / "check_sbom.py")
    valid = completed()
    valid["metadata"]["component"]["type"] = "application"
    argv = command_line(tmp_path, valid)
    proc = subprocess.run(
        [build_python, script, *argv], check=False, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    valid["components"][0]["type"] = "no-such-type"
    argv = command_line(tmp_path, valid)
    proc = subprocess.run(
        [build_python, script, *argv], check=False, capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert "x.cdx.json: not valid CycloneDX 1.6" in proc.stderr

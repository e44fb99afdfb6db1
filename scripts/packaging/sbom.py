"""Complete cyclonedx-py's environment SBOM: component hashes and the root's version.

``python scripts/packaging/sbom.py BASE.cdx.json REPORT.json VERSION OUT.cdx.json [ARTEFACT]``

``BASE`` is ``cyclonedx-py environment`` of the runtime venv, ``REPORT`` pip's ``--report`` of
the hash-checked install of ``requirements.lock`` into that venv. Each component gets the
SHA-256 of the distribution file pip installed for it (the report's ``archive_info``: the file
pip checked against the lock, the one a user can compare with the package index); the root
component gets ``VERSION`` and a purl, and, given ``ARTEFACT`` (the wheel, the sdist, the
bundle), that file's SHA-256 and its name as the property ``mcp-server-sevdesk:artefact``.
A component without a hash in the report ends it with a message naming it.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # the sibling pep503, also when loaded
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # from a file by the tests
from pep503 import normalise

ROOT_NAME = "mcp-server-sevdesk"


def installed_hashes(report: dict[str, Any]) -> dict[tuple[str, str], str]:
    """:returns: (name, version) -> sha256 of each file in pip's install ``report``."""
    out: dict[tuple[str, str], str] = {}
    for item in report.get("install", []):
        meta = item["metadata"]
        digest = item.get("download_info", {}).get("archive_info", {}).get("hashes", {})
        if "sha256" in digest:
            out[normalise(meta["name"]), meta["version"]] = digest["sha256"]
    return out


def complete(
    sbom: dict[str, Any], hashes: dict[tuple[str, str], str], version: str
) -> dict[str, Any]:
    """Add ``hashes`` to every component of ``sbom`` and ``version`` to its root.

    :raises SystemExit: if a component has no hash in ``hashes``.
    """
    for component in sbom.get("components", []):
        key = (normalise(component["name"]), component.get("version", ""))
        if key not in hashes:
            raise SystemExit(
                f"sbom: no sha256 for {key[0]}=={key[1]} in pip's install report: install the "
                "runtime venv from requirements.lock with --require-hashes --report"
            )
        component["hashes"] = [{"alg": "SHA-256", "content": hashes[key]}]
    root = sbom["metadata"]["component"]
    root["version"] = version
    root["purl"] = f"pkg:pypi/{ROOT_NAME}@{version}"
    return sbom


def describe_artefact(sbom: dict[str, Any], artefact: Path) -> dict[str, Any]:
    """Name ``artefact`` and its SHA-256 on the SBOM's root component."""
    root = sbom["metadata"]["component"]
    root["hashes"] = [
        {"alg": "SHA-256", "content": hashlib.sha256(artefact.read_bytes()).hexdigest()}
    ]
    root["properties"] = [{"name": f"{ROOT_NAME}:artefact", "value": artefact.name}]
    return sbom


def main(argv: list[str]) -> int:
    """:returns: 0 after writing the SBOM; exits with the usage line on wrong arguments."""
    if len(argv) not in (4, 5):
        raise SystemExit("usage: sbom.py BASE.cdx.json REPORT.json VERSION OUT.cdx.json [ARTEFACT]")
    base, report, version, out = argv[:4]
    sbom = json.loads(Path(base).read_text())
    complete(sbom, installed_hashes(json.loads(Path(report).read_text())), version)
    if len(argv) == 5:
        describe_artefact(sbom, Path(argv[4]))
    Path(out).write_text(json.dumps(sbom, indent=2, sort_keys=True) + "\n")
    print(f"sbom: {Path(out).name}: {len(sbom.get('components', []))} components with sha256")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Check an SBOM against an installed tree and the hash lock it was installed from.

``python scripts/packaging/check_sbom.py SBOM.cdx.json LOCK PYTHON VERSION``

``PYTHON`` is the interpreter of the installed tree (the runtime venv's). It fails, with one line
per mismatch, unless:

* the SBOM's root component is ``mcp-server-sevdesk`` with ``VERSION``, and that is the version
  installed;
* every other installed distribution is a component with its installed version, and there is no
  component that is not installed, none listed twice;
* every component has exactly one SHA-256, and it is one of the hashes ``LOCK``
  (``requirements.lock``) pins for that name and version: the file pip installed with
  ``--require-hashes``.

and the SBOM is valid against the CycloneDX 1.6 JSON schema, with ``cyclonedx-python-lib`` (run
it with the build tools' interpreter: without the library it fails with one line).
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # the sibling pep503, also when loaded
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # from a file by the tests
from pep503 import normalise

ROOT_NAME = "mcp-server-sevdesk"
# run by the tree's interpreter: every distribution on its path (or on the paths given)
TREE = """
import json, sys
from importlib.metadata import distributions
paths = sys.argv[1:] or sys.path
print(json.dumps({d.metadata["Name"]: d.version for d in distributions(path=paths)}))
"""
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
_HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")

Locked = dict[str, tuple[str, frozenset[str]]]
# a schema check: the SBOM's text -> its errors
Validate = Callable[[str], list[str]]


def parse_lock(text: str) -> Locked:
    """:returns: name -> (version, sha256 hashes) of a ``--generate-hashes`` requirements file."""
    locked: dict[str, tuple[str, set[str]]] = {}
    current = ""
    for line in text.splitlines():
        pin = _PIN.match(line)
        if pin:
            current = normalise(pin.group(1))
            locked[current] = (pin.group(2), set())
        if current:
            locked[current][1].update(_HASH.findall(line))
    return {name: (version, frozenset(hashes)) for name, (version, hashes) in locked.items()}


def tree(command: list[str]) -> dict[str, str]:
    """:returns: normalised name -> version of what ``command`` (a Python running ``TREE``)
    prints.

    :raises subprocess.CalledProcessError: if the command fails.
    """
    proc = subprocess.run(command, capture_output=True, text=True, check=True)  # noqa: S603
    return {normalise(name): version for name, version in json.loads(proc.stdout).items()}


def root_problems(sbom: dict[str, Any], installed: dict[str, str], version: str) -> list[str]:
    """:returns: what is wrong with the SBOM's root component."""
    root = sbom.get("metadata", {}).get("component", {})
    problems = []
    if normalise(root.get("name", "")) != ROOT_NAME:
        problems.append(f"the root component is {root.get('name')!r}, not {ROOT_NAME}")
    if root.get("version") != version:
        problems.append(f"the root component has version {root.get('version')!r}, not {version}")
    if installed.get(ROOT_NAME) != version:
        problems.append(f"{ROOT_NAME} {installed.get(ROOT_NAME)!r} is installed, not {version}")
    return problems


def component_problems(
    component: dict[str, Any], installed: dict[str, str], locked: Locked
) -> list[str]:
    """:returns: what is wrong with one component: version, hash."""
    name, version = normalise(component.get("name", "")), component.get("version")
    if name not in installed:
        return [f"{name}=={version} is in the SBOM but not installed"]
    if version != installed[name]:
        return [f"{name}: the SBOM says {version}, {installed[name]} is installed"]
    hashes = [h.get("content") for h in component.get("hashes", []) if h.get("alg") == "SHA-256"]
    if len(hashes) != 1:
        return [f"{name}=={version}: {len(hashes)} SHA-256 hashes in the SBOM, not one"]
    lock_version, lock_hashes = locked.get(name, ("", frozenset()))
    if lock_version != version:
        return [f"{name}: the lock pins {lock_version or 'nothing'}, {version} is installed"]
    if hashes[0] not in lock_hashes:
        return [f"{name}=={version}: SHA-256 {hashes[0]} is none of the lock's files"]
    return []


def problems(
    sbom: dict[str, Any], installed: dict[str, str], locked: Locked, version: str
) -> list[str]:
    """:returns: every mismatch between ``sbom``, the ``installed`` tree and the lock."""
    found = root_problems(sbom, installed, version)
    seen: set[str] = set()
    for component in sbom.get("components", []):
        name = normalise(component.get("name", ""))
        if name in seen:
            found.append(f"{name} is listed twice in the SBOM")
        seen.add(name)
        found.extend(component_problems(component, installed, locked))
    for name in sorted(set(installed) - seen - {ROOT_NAME}):
        found.append(f"{name}=={installed[name]} is installed but not in the SBOM")
    return found


def cyclonedx_validator() -> Validate:
    """:returns: the CycloneDX 1.6 JSON schema check of ``cyclonedx-python-lib``.

    :raises SystemExit: with one line if the library is not importable.
    """
    try:
        schema = importlib.import_module("cyclonedx.schema")
        validation = importlib.import_module("cyclonedx.validation")
    except ImportError as exc:
        raise SystemExit(
            f"check_sbom: cannot validate the SBOM, {exc}: run it with the build tools' python "
            "(pip install --require-hashes -r scripts/packaging/tools.lock)"
        ) from None
    validator = validation.make_schemabased_validator(
        schema.OutputFormat.JSON, schema.SchemaVersion.V1_6
    )

    def validate(text: str) -> list[str]:
        error = validator.validate_str(text)
        return [f"not valid CycloneDX 1.6: {str(error).splitlines()[0]}"] if error else []

    return validate


def main(argv: list[str], validate: Validate | None = None) -> int:
    """:returns: 0 if the SBOM matches, 1 with one line per mismatch otherwise.

    ``validate`` is the schema check (default: :func:`cyclonedx_validator`'s).

    :raises SystemExit: with the usage line on wrong arguments, or one line without the library.
    """
    if len(argv) != 4:
        raise SystemExit("usage: check_sbom.py SBOM.cdx.json LOCK PYTHON VERSION")
    check_schema = validate or cyclonedx_validator()
    path, lock, python, version = argv
    text = Path(path).read_text()
    installed = tree([python, "-I", "-c", TREE])
    found = check_schema(text) + problems(
        json.loads(text), installed, parse_lock(Path(lock).read_text()), version
    )
    for problem in found:
        print(f"check_sbom: {Path(path).name}: {problem}", file=sys.stderr)
    if not found:
        print(f"check_sbom: {Path(path).name}: {len(installed)} installed distributions match")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

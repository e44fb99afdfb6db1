"""Build the Claude Desktop extension ``dist/mcp-server-sevdesk.mcpb`` from ``mcpb/``.

``python scripts/packaging/build_mcpb.py WHEEL LOCK OUT.mcpb`` with the official ``mcpb`` CLI
(``npm install @anthropic-ai/mcpb``, Node 22) on ``PATH`` or named by ``MCPB``, and ``uv`` on
``PATH`` or named by ``UV``:

1. stages ``mcpb/manifest.json``, ``mcpb/icon.png`` and ``mcpb/server/main.py`` with the built
   wheel under ``wheels/`` and a ``pyproject.toml`` that makes ``uv`` (the manifest's server type)
   install exactly that wheel and its runtime dependencies, constrained to the versions pinned
   in ``LOCK`` (``requirements.lock``);
2. refuses a manifest whose version is not the wheel's;
3. writes the bundle's ``uv.lock`` with ``uv lock`` and refuses it unless it pins exactly the
   versions of ``LOCK`` from an https index: the manifest runs ``uv run --frozen``, so every user
   installs these versions, each file checked against the hash in ``uv.lock``;
4. validates the manifest with ``mcpb validate`` and packs the folder with ``mcpb pack``.

Any failure ends it with a non-zero status and one line saying what failed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # the sibling pep503, also when loaded
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # from a file by the tests
from pep503 import normalise

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "mcpb"
PYPROJECT = """\
# Written by scripts/packaging/build_mcpb.py: the bundle's environment, for `uv run`.
[project]
name = "mcp-server-sevdesk-bundle"
version = "{version}"
requires-python = ">=3.11"
dependencies = ["mcp-server-sevdesk=={version}"]

[tool.uv]
package = false
# the versions of requirements.lock, so that uv.lock pins what the image and the SBOMs have
constraint-dependencies = [
{constraints}]

[tool.uv.sources]
mcp-server-sevdesk = {{ path = "wheels/{wheel}" }}
"""


BUNDLE = "mcp-server-sevdesk-bundle"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)[^\\]*")


def pins(lock: Path) -> dict[str, tuple[str, str]]:
    """:returns: name -> (version, requirement with its marker) of a requirements lock."""
    out: dict[str, tuple[str, str]] = {}
    for line in lock.read_text().splitlines():
        match = _PIN.match(line)
        if match:
            out[normalise(match.group(1))] = (match.group(2), match.group(0).strip())
    return out


def stage(wheel: Path, lock: Path, folder: Path) -> dict[str, object]:
    """Copy the bundle's files into ``folder``; :returns: the manifest."""
    manifest: dict[str, object] = json.loads((SOURCE / "manifest.json").read_text())
    version = wheel.name.split("-")[1]
    if manifest.get("version") != version:
        raise SystemExit(
            f"build_mcpb: mcpb/manifest.json has version {manifest.get('version')!r}, "
            f"the wheel {version!r}"
        )
    (folder / "server").mkdir(parents=True)
    (folder / "wheels").mkdir()
    shutil.copyfile(SOURCE / "manifest.json", folder / "manifest.json")
    shutil.copyfile(SOURCE / "icon.png", folder / "icon.png")
    shutil.copyfile(SOURCE / "server" / "main.py", folder / "server" / "main.py")
    shutil.copyfile(wheel, folder / "wheels" / wheel.name)
    constraints = "".join(f"    {json.dumps(req)},\n" for _, req in pins(lock).values())
    (folder / "pyproject.toml").write_text(
        PYPROJECT.format(version=version, wheel=wheel.name, constraints=constraints)
    )
    return manifest


def uv_lock(folder: Path, lock: Path) -> None:
    """Write ``folder/uv.lock``; exit unless it pins exactly the versions of ``lock``."""
    command = os.environ.get("UV") or shutil.which("uv")
    if not command:
        raise SystemExit("build_mcpb: uv is needed to lock the bundle (pip install uv)")
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
    proc = subprocess.run(  # noqa: S603 - fixed arguments
        [command, "lock", "--quiet", "--directory", str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"build_mcpb: uv lock failed:\n{proc.stdout}{proc.stderr}")
    locked = locked_versions(folder / "uv.lock")
    wanted = {name: version for name, (version, _) in pins(lock).items()}
    if locked != wanted:
        differ = sorted(set(locked.items()) ^ set(wanted.items()))
        raise SystemExit(f"build_mcpb: uv.lock and {lock.name} differ in {differ}")


def locked_versions(uv_lock: Path) -> dict[str, str]:
    """:returns: name -> version of the index packages in ``uv_lock``.

    :raises SystemExit: if a package comes from anything but an https index, the bundle and the
        wheel inside it excepted.
    """
    out: dict[str, str] = {}
    for package in tomllib.loads(uv_lock.read_text()).get("package", []):
        name, source = normalise(package["name"]), package.get("source", {})
        if name in (BUNDLE, "mcp-server-sevdesk"):
            continue
        if not str(source.get("registry", "")).startswith("https://"):
            raise SystemExit(f"build_mcpb: uv.lock takes {name} from {source}, not an https index")
        out[name] = package["version"]
    return out


def mcpb(*args: str) -> None:
    """Run the ``mcpb`` CLI; exit with its output when it fails."""
    command = os.environ.get("MCPB") or shutil.which("mcpb")
    if not command:
        raise SystemExit("build_mcpb: the mcpb CLI is needed (npm install @anthropic-ai/mcpb)")
    proc = subprocess.run([command, *args], capture_output=True, text=True, check=False)  # noqa: S603
    if proc.returncode != 0 or "ERROR" in proc.stdout + proc.stderr:
        raise SystemExit(f"build_mcpb: mcpb {args[0]} failed:\n{proc.stdout}{proc.stderr}")


def main(argv: list[str]) -> int:
    """:returns: 0 after packing; exits with a message otherwise."""
    if len(argv) != 3 or not argv[0].endswith(".whl"):
        raise SystemExit("usage: build_mcpb.py WHEEL requirements.lock OUT.mcpb")
    wheel, lock, out = (Path(arg).resolve() for arg in argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "bundle"
        stage(wheel, lock, folder)
        uv_lock(folder, lock)
        mcpb("validate", str(folder / "manifest.json"))
        out.parent.mkdir(parents=True, exist_ok=True)
        out.unlink(missing_ok=True)
        mcpb("pack", str(folder), str(out))
    if not out.is_file():
        raise SystemExit(f"build_mcpb: mcpb pack wrote no {out.name}")
    print(f"build_mcpb: {out.name} ({out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

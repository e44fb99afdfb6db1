"""Build the Claude Desktop extension ``dist/mcp-server-sevdesk.mcpb`` from ``mcpb/``.

``python scripts/packaging/build_mcpb.py WHEEL OUT.mcpb`` with the official ``mcpb`` CLI
(``npm install @anthropic-ai/mcpb``, Node 22) on ``PATH`` or named by ``MCPB``:

1. stages ``mcpb/manifest.json``, ``mcpb/icon.png`` and ``mcpb/server/main.py`` with the built
   wheel under ``wheels/`` and a ``pyproject.toml`` that makes ``uv`` (the manifest's server type)
   install exactly that wheel and its runtime dependencies;
2. refuses a manifest whose version is not the wheel's;
3. validates the manifest with ``mcpb validate`` and packs the folder with ``mcpb pack``.

Any failure ends it with a non-zero status and one line saying what failed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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

[tool.uv.sources]
mcp-server-sevdesk = {{ path = "wheels/{wheel}" }}
"""


def stage(wheel: Path, folder: Path) -> dict[str, object]:
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
    (folder / "pyproject.toml").write_text(PYPROJECT.format(version=version, wheel=wheel.name))
    return manifest


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
    if len(argv) != 2 or not argv[0].endswith(".whl"):
        raise SystemExit("usage: build_mcpb.py WHEEL OUT.mcpb")
    wheel, out = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "bundle"
        stage(wheel, folder)
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

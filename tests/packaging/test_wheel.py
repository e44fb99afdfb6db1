"""The built wheel, installed alone into a fresh venv, and run through ``uvx``.

Needs ``PACKAGING_DIST`` and ``PACKAGING_RUNTIME_VENV`` (``scripts/ci_packaging.sh``).
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from sevdesk_mcp import __version__
from tests.packaging.support import base_environment, check_demo_session, stdio_client

pytestmark = pytest.mark.anyio
ERAS = [("auto", "2026-07-28"), ("legacy", "2025-11-25")]

IMPORT_EVERY_MODULE = """
import importlib, pkgutil, sys
import sevdesk_mcp
assert sevdesk_mcp.__file__.startswith(sys.prefix), sevdesk_mcp.__file__
names = [m.name for m in pkgutil.walk_packages(sevdesk_mcp.__path__, "sevdesk_mcp.")]
for name in names:
    importlib.import_module(name)
assert importlib.util.find_spec("mcp") is None, "the MCP SDK must not be installed"
print(len(names))
"""


def test_the_artifacts_carry_the_package_version(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    assert f"mcp_server_sevdesk-{__version__}-py3-none-any.whl" in names
    assert f"mcp_server_sevdesk-{__version__}.tar.gz" in names
    for artefact in ("", "-sdist", "-mcpb", "-image"):  # an SBOM for each artefact
        assert f"mcp-server-sevdesk-{__version__}{artefact}.cdx.json" in names


def test_the_wheel_holds_every_module_of_the_checkout(wheel: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    source = {p.relative_to(root).as_posix() for p in (root / "sevdesk_mcp").rglob("*.py")}
    with zipfile.ZipFile(wheel) as archive:
        packed = {n for n in archive.namelist() if n.endswith(".py")}
    assert source == packed


def test_the_wheel_holds_the_tool_index(wheel: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    with zipfile.ZipFile(wheel) as archive:
        packed = archive.read("sevdesk_mcp/tools/index.json")
    assert packed == (root / "sevdesk_mcp" / "tools" / "index.json").read_bytes()


def test_every_module_imports_in_a_venv_with_only_the_wheel(
    runtime_venv: Path, tmp_path: Path
) -> None:
    """A runtime dependency missing from the wheel's metadata fails here: the venv has nothing
    but what the wheel declares."""
    proc = subprocess.run(
        [str(runtime_venv / "bin" / "python"), "-I", "-c", IMPORT_EVERY_MODULE],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=base_environment(),
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) > 50


@pytest.mark.parametrize(("mode", "era"), ERAS)
async def test_the_installed_command_serves_the_demo_books_over_stdio(
    runtime_venv: Path, tmp_path: Path, mode: str, era: str
) -> None:
    command = str(runtime_venv / "bin" / "mcp-server-sevdesk")
    async with stdio_client(command, ["--demo"], base_environment(), tmp_path, mode) as client:
        await check_demo_session(client, era)


@pytest.mark.parametrize(("mode", "era"), ERAS)
async def test_uvx_runs_the_wheel(
    *, uv: Path, wheel: Path, uv_env: dict[str, str], tmp_path: Path, mode: str, era: str
) -> None:
    uvx = str(uv.with_name("uvx"))
    args = ["--from", str(wheel), "mcp-server-sevdesk", "--demo"]
    env = base_environment(**uv_env)
    async with stdio_client(uvx, args, env, tmp_path, mode) as client:
        await check_demo_session(client, era)

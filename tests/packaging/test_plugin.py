"""The Claude Code plugin (``plugin/``): the shapes of its JSON files and the skill's tools.

Shapes as Claude Code's plugin reference documents them: ``.claude-plugin/plugin.json`` (a
kebab-case ``name``; optional metadata; component paths starting with ``./``), ``.mcp.json``
(``mcpServers`` with a ``command``, ``args`` and ``env``), ``.claude-plugin/marketplace.json``
(``name``, ``owner.name``, ``plugins`` with ``name`` and ``source``) and a skill folder with a
``SKILL.md`` whose front matter has ``name`` and ``description``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from sevdesk_mcp import __version__
from sevdesk_mcp.tools.definitions import ALL_TOOLS
from tests.packaging.conftest import ROOT

PLUGIN = ROOT / "plugin"
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
SEMVER = re.compile(r"^\d+\.\d+\.\d+([-+].+)?$")
DOCUMENTED = set(
    re.findall(
        r"^\| `(SEVDESK_[A-Z_]+)`",
        (ROOT / "docs" / "configuration.md").read_text(),
        flags=re.MULTILINE,
    )
)


def load(relative: str) -> Any:
    return json.loads((PLUGIN / relative).read_text())


def string_or_absent(data: dict[str, Any], *keys: str) -> None:
    for key in keys:
        assert isinstance(data.get(key, ""), str), key


def test_the_plugin_manifest_has_the_documented_shape() -> None:
    manifest = load(".claude-plugin/plugin.json")
    assert KEBAB.match(manifest["name"])
    assert SEMVER.match(manifest["version"]) and manifest["version"] == __version__
    string_or_absent(manifest, "description", "license", "homepage")
    assert isinstance(manifest["author"]["name"], str)
    assert all(isinstance(k, str) for k in manifest.get("keywords", []))
    known = {
        "name", "version", "description", "author", "homepage", "repository", "license",
        "keywords", "commands", "agents", "skills", "hooks", "mcpServers", "outputStyles",
        "lspServers",
    }  # fmt: skip
    assert set(manifest) <= known
    for key in ("mcpServers", "skills"):
        assert manifest[key].startswith("./")
        assert (PLUGIN / manifest[key]).exists(), key


def test_the_mcp_server_entry_starts_the_server_over_stdio_read_only_by_default() -> None:
    servers = load(".mcp.json")["mcpServers"]
    assert list(servers) == ["sevdesk"]
    entry = servers["sevdesk"]
    assert entry["command"] == "mcp-server-sevdesk"
    assert entry["args"] == ["--stdio"]
    assert set(entry["env"]) <= DOCUMENTED
    for variable, value in entry["env"].items():
        match = re.fullmatch(r"\$\{([A-Z_]+)(?::-([^}]*))?\}", value)
        assert match and match.group(1) == variable, (variable, value)
    assert entry["env"]["SEVDESK_ALLOW"] == "${SEVDESK_ALLOW:-read}"
    assert entry["env"]["SEVDESK_API_TOKEN"] == "${SEVDESK_API_TOKEN}"  # never a default


def test_the_marketplace_entry_points_at_the_plugin() -> None:
    market = load(".claude-plugin/marketplace.json")
    assert KEBAB.match(market["name"])
    assert isinstance(market["owner"]["name"], str)
    (entry,) = market["plugins"]
    manifest = load(".claude-plugin/plugin.json")
    assert entry["name"] == manifest["name"]
    assert entry["version"] == manifest["version"]
    assert entry["source"].startswith("./")
    assert (PLUGIN / entry["source"] / ".claude-plugin" / "plugin.json").is_file()


def skills() -> list[Path]:
    found = sorted((PLUGIN / "skills").glob("*/SKILL.md"))
    assert found
    return found


def test_each_skill_has_front_matter_with_its_folder_name_and_a_description() -> None:
    for skill in skills():
        _, front, body = skill.read_text().split("---\n", 2)
        meta = yaml.safe_load(front)
        assert meta["name"] == skill.parent.name and KEBAB.match(meta["name"])
        assert isinstance(meta["description"], str) and len(meta["description"]) <= 1024
        assert body.strip()


def test_every_tool_a_skill_names_exists() -> None:
    existing = {tool.name for tool in ALL_TOOLS}
    for skill in skills():
        named = set(re.findall(r"\bsevdesk_[a-z_]+\b", skill.read_text()))
        assert named, skill
        assert named <= existing, sorted(named - existing)


def test_the_skill_covers_every_binding_action() -> None:
    text = "".join(skill.read_text() for skill in skills())
    binding = {str(t.name) for t in ALL_TOOLS if str(t.tier) in ("commit", "external")}
    assert {name for name in binding if f"`{name}`" in text} == binding

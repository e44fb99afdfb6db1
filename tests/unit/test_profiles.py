"""Local profiles: read from the user's config folder, trusted only when they are the user's
own regular files that nobody else can change, and always under the environment."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from sevdesk_mcp.accounts.local_commands import profiles_command
from sevdesk_mcp.accounts.profiles import (
    config_home,
    load_profile,
    local_environment,
    profiles_dir,
)
from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.safety.tiers import Tier

pytestmark = pytest.mark.skipif(os.name == "nt", reason="owners and modes are POSIX")
PROFILE = {
    "tiers": ["read", "write"],
    "toolsets": ["meta", "contacts"],
    "confirm": "browser",
    "keychain_entry": "work",
}


def _write(home: Path, name: str, content: object, mode: int = 0o600) -> Path:
    folder = home / "mcp-server-sevdesk" / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    path.chmod(mode)
    return path


def _env(home: Path, **more: str) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(home), **more}


def test_a_profile_lies_under_the_environment_which_wins(tmp_path: Path) -> None:
    _write(tmp_path, "work", PROFILE)
    env = local_environment(_env(tmp_path, SEVDESK_PROFILE="work", SEVDESK_CONFIRM="elicit"))
    config = load_config(env)
    assert config.tiers == frozenset({Tier.READ, Tier.WRITE})
    assert config.toolsets == frozenset({"meta", "contacts"})
    assert config.confirm == "elicit"  # the variable wins over the profile's browser
    assert env["SEVDESK_KEYCHAIN_ENTRY"] == "work"


def test_a_profile_holds_the_tax_facts(tmp_path: Path) -> None:
    tax = {"vat_method": "ist", "small_business": True, "legal_form": "freelancer",
           "chart": "skr04", "low_value_assets": "2026:pool", "vat_extension": False}  # fmt: skip
    _write(tmp_path, "tax", tax)
    env = local_environment(_env(tmp_path, SEVDESK_PROFILE="tax", SEVDESK_VAT_METHOD="soll"))
    facts = load_config(env).tax
    assert facts.vat_method == "soll"  # the variable wins
    assert (facts.small_business, facts.legal_form, facts.chart) == (True, "freelancer", "skr04")
    assert (facts.low_value_by_year, facts.vat_extension) == ({2026: "pool"}, False)


def test_without_sevdesk_profile_nothing_is_read(tmp_path: Path) -> None:
    _write(tmp_path, "work", PROFILE, mode=0o666)  # untrusted, but never looked at
    assert local_environment(_env(tmp_path)) == _env(tmp_path)


def test_a_group_writable_profile_is_refused_with_the_reason(tmp_path: Path) -> None:
    _write(tmp_path, "work", PROFILE, mode=0o620)
    with pytest.raises(ConfigError, match="writable by other users; run chmod go-w"):
        load_profile(_env(tmp_path), "work")


def test_a_world_writable_folder_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "work", PROFILE)
    path.parent.chmod(0o777)
    with pytest.raises(ConfigError, match=r"\(its folder\) is writable by other users"):
        load_profile(_env(tmp_path), "work")


def test_a_symlinked_profile_is_refused_with_the_reason(tmp_path: Path) -> None:
    real = _write(tmp_path, "real", PROFILE)
    (real.parent / "work.json").symlink_to(real)
    with pytest.raises(ConfigError, match="is a symlink; profiles must be regular files"):
        load_profile(_env(tmp_path), "work")


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown needs root")
def test_a_profile_of_another_user_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = _write(tmp_path, "work", PROFILE)
    os.chown(path, 4242, -1)
    with pytest.raises(ConfigError, match=r"belongs to another user \(uid 4242\)"):
        load_profile(_env(tmp_path), "work")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ({"tiers": "read"}, "is not valid"),
        ({"token": "abc"}, "is not valid"),  # a profile never holds the token
    ],
)
def test_a_malformed_profile_is_refused(tmp_path: Path, content: object, said: str) -> None:
    _write(tmp_path, "work", content)
    with pytest.raises(ConfigError, match=said):
        load_profile(_env(tmp_path), "work")


def test_a_missing_profile_or_bad_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no profile file"):
        load_profile(_env(tmp_path), "nope")
    with pytest.raises(ConfigError, match="use a profile name"):
        load_profile(_env(tmp_path), "../etc")


def test_config_folders_per_platform(tmp_path: Path) -> None:
    assert config_home({"XDG_CONFIG_HOME": str(tmp_path)}, "linux") == tmp_path
    assert config_home({"XDG_CONFIG_HOME": "relative"}, "linux") == Path.home() / ".config"
    assert config_home({"APPDATA": str(tmp_path)}, "win32") == tmp_path
    assert config_home({}, "darwin") == Path.home() / "Library" / "Application Support"
    assert profiles_dir({"XDG_CONFIG_HOME": str(tmp_path)}, "linux").parts[-2:] == (
        "mcp-server-sevdesk",
        "profiles",
    )


def test_profiles_list_says_which_can_be_used(tmp_path: Path) -> None:
    _write(tmp_path, "good", PROFILE)
    _write(tmp_path, "shared", PROFILE, mode=0o666)
    out = io.StringIO()
    assert profiles_command(_env(tmp_path), ["list"], out=out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "good\tok"
    assert lines[1].startswith("shared\t") and "writable by other users" in lines[1]
    with pytest.raises(ConfigError, match="use: profiles list"):
        profiles_command(_env(tmp_path), ["show"], out=out)

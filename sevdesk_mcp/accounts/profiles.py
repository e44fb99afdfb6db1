"""Local profiles (stdio): ``SEVDESK_PROFILE=name`` reads ``profiles/NAME.json`` from the
user's config folder and lays it under the environment: a variable that is set wins.

The file must be a regular file (no symlink), owned by the user, and writable by nobody else
(nor may its folder be); otherwise it is refused with the reason. A profile holds settings,
never the token: it names the keychain entry the token is read from.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import msgspec

from sevdesk_mcp.config import setting
from sevdesk_mcp.errors import ConfigError

APP: Final = "mcp-server-sevdesk"
NAME: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MAX_PROFILE_BYTES: Final = 64 * 1024
VARIABLE: Final = "SEVDESK_PROFILE"


class Profile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The settings a profile may hold; each maps to one ``SEVDESK_*`` variable."""

    tiers: list[str] | None = None
    toolsets: list[str] | None = None
    read_only: bool | None = None
    dry_run: bool | None = None
    confirm: str | None = None
    output_dir: str | None = None
    file_dirs: list[str] | None = None
    audit_log: str | None = None
    keychain_entry: str | None = None
    vat_method: str | None = None
    small_business: bool | None = None
    legal_form: str | None = None
    chart: str | None = None
    low_value_assets: str | None = None
    vat_extension: bool | None = None


def config_home(env: Mapping[str, str], platform: str = sys.platform) -> Path:
    """:returns: the user's config folder: ``%APPDATA%`` on Windows, ``~/Library/Application
    Support`` on macOS, else ``$XDG_CONFIG_HOME`` (absolute) or ``~/.config``."""
    if platform == "win32" and env.get("APPDATA"):
        return Path(env["APPDATA"])
    if platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    xdg = env.get("XDG_CONFIG_HOME", "")
    return Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".config"


def profiles_dir(env: Mapping[str, str], platform: str = sys.platform) -> Path:
    """:returns: the folder profiles are read from."""
    return config_home(env, platform) / APP / "profiles"


def load_profile(env: Mapping[str, str], name: str) -> Profile:
    """:returns: the trusted profile ``name``.

    :raises ConfigError: naming ``SEVDESK_PROFILE``, if the name is invalid, the file is
        missing, untrusted (symlink, foreign owner, writable by others) or not a valid profile.
    """
    if not NAME.match(name):
        raise ConfigError(VARIABLE, "use a profile name of letters, digits, _ and - (at most 64)")
    path = profiles_dir(env) / f"{name}.json"
    data = _read_trusted(path)
    try:
        return msgspec.json.decode(data, type=Profile)
    except msgspec.DecodeError as exc:
        raise ConfigError(VARIABLE, f"profile {name!r} is not valid: {exc}") from None


def _read_trusted(path: Path) -> bytes:
    """:raises ConfigError: if ``path`` is missing, a symlink, not the user's or writable by
    others, or its folder is."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise ConfigError(VARIABLE, f"no profile file {path}; create it or unset it") from None
    except OSError as exc:
        raise ConfigError(VARIABLE, f"cannot read {path} ({exc.strerror})") from None
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError(VARIABLE, f"{path} is a symlink; profiles must be regular files")
    _check_owner(path.parent, os.stat(path.parent), "its folder")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise ConfigError(VARIABLE, f"cannot read {path} ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if not stat.S_ISREG(opened.st_mode) or opened.st_ino != info.st_ino:
            raise ConfigError(VARIABLE, f"{path} is not a regular file")
        _check_owner(path, opened, "the file")
        data = handle.read(MAX_PROFILE_BYTES + 1)
    if len(data) > MAX_PROFILE_BYTES:
        raise ConfigError(VARIABLE, f"{path} is larger than {MAX_PROFILE_BYTES // 1024} KiB")
    return data


def _check_owner(path: Path, info: os.stat_result, what: str) -> None:
    """Trust checks where the platform has owners and modes (not on Windows, where the
    profile lives in the user's own profile folder)."""
    if sys.platform == "win32":
        return
    if info.st_uid != os.getuid():
        raise ConfigError(
            VARIABLE,
            f"{path} ({what}) belongs to another user (uid {info.st_uid}); profiles must be "
            "your own: copy it and chown it to yourself",
        )
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ConfigError(
            VARIABLE,
            f"{path} ({what}) is writable by other users; run chmod go-w on it",
        )


def overlay(env: Mapping[str, str], profile: Profile) -> dict[str, str]:
    """:returns: ``env`` with the profile's settings where ``env`` leaves them unset."""
    given = {k: v for k, v in _variables(profile).items() if setting(env, k) is None}
    return {**env, **given}


def _variables(profile: Profile) -> dict[str, str]:
    given: dict[str, str | None] = {
        "SEVDESK_ALLOW": ",".join(profile.tiers) if profile.tiers is not None else None,
        "SEVDESK_TOOLSETS": ",".join(profile.toolsets) if profile.toolsets is not None else None,
        "SEVDESK_READ_ONLY": _yes_no(profile.read_only),
        "SEVDESK_DRY_RUN": _yes_no(profile.dry_run),
        "SEVDESK_CONFIRM": profile.confirm,
        "SEVDESK_OUTPUT_DIR": profile.output_dir,
        "SEVDESK_FILE_DIRS": os.pathsep.join(profile.file_dirs) if profile.file_dirs else None,
        "SEVDESK_AUDIT_LOG": profile.audit_log,
        "SEVDESK_KEYCHAIN_ENTRY": profile.keychain_entry,
        "SEVDESK_VAT_METHOD": profile.vat_method,
        "SEVDESK_SMALL_BUSINESS": _yes_no(profile.small_business),
        "SEVDESK_LEGAL_FORM": profile.legal_form,
        "SEVDESK_CHART": profile.chart,
        "SEVDESK_LOW_VALUE_ASSETS": profile.low_value_assets,
        "SEVDESK_VAT_EXTENSION": _yes_no(profile.vat_extension),
    }
    return {k: v for k, v in given.items() if v}


def _yes_no(value: bool | None) -> str | None:
    return None if value is None else ("1" if value else "0")


def local_environment(env: Mapping[str, str]) -> dict[str, str]:
    """:returns: the environment with ``SEVDESK_PROFILE``'s profile laid under it (or ``env``
    unchanged without one).

    :raises ConfigError: if the profile cannot be trusted or read.
    """
    name = setting(env, VARIABLE)
    return dict(env) if name is None else overlay(env, load_profile(env, name))


def list_profiles(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """:returns: each profile's name and ``ok`` or why it is refused, sorted by name."""
    folder = profiles_dir(env)
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.json")):
        name = path.stem
        try:
            load_profile(env, name)
        except ConfigError as exc:
            out.append((name, str(exc).removeprefix(f"{VARIABLE}: ")))
        else:
            out.append((name, "ok"))
    return out

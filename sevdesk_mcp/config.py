"""Configuration from the environment.

Rules shared by every variable:

- an empty value, whitespace, or an unsubstituted ``${user_config.…}`` placeholder (which some
  desktop clients pass for blank optional settings) counts as unset;
- a bad value raises :class:`~sevdesk_mcp.errors.ConfigError` naming the variable and the
  allowed values; the command line prints it as one line on stderr and exits with status 2.

The default is read-only: only the ``read`` tier is enabled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, Literal

import msgspec

from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.safety.tiers import DEFAULT_TIERS, Tier

StructuredOutput = Literal["auto", "on", "off"]

_PLACEHOLDER: Final = re.compile(r"^\$\{[^}]*\}$")
_TOOLSET_NAME: Final = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off"})
_BOOL_HELP: Final = "use one of 1, true, yes, on, 0, false, no, off"


class Config(msgspec.Struct, frozen=True, kw_only=True):
    """Settings shared by every account of this process.

    :param tiers: the enabled tiers, after ``SEVDESK_READ_ONLY`` was applied.
    :param toolsets: the toolsets asked for, or ``None`` for the default toolsets.
    """

    tiers: frozenset[Tier] = DEFAULT_TIERS
    read_only: bool = False
    toolsets: frozenset[str] | None = None
    dry_run: bool = False
    structured_output: StructuredOutput = "auto"

    def allows(self, tier: Tier) -> bool:
        """:returns: whether tools of ``tier`` may be registered and called."""
        return tier in self.tiers


def load_config(env: Mapping[str, str]) -> Config:
    """Read the configuration from ``env``.

    :raises ConfigError: if a value is invalid.
    """
    read_only = _bool(env, "SEVDESK_READ_ONLY")
    tiers = _tiers(env)
    return Config(
        tiers=DEFAULT_TIERS if read_only else tiers,
        read_only=read_only,
        toolsets=_toolsets(env),
        dry_run=_bool(env, "SEVDESK_DRY_RUN"),
        structured_output=_structured(env),
    )


def setting(env: Mapping[str, str], name: str) -> str | None:
    """:returns: the value of ``name``, or ``None`` if it counts as unset."""
    value = env.get(name, "").strip()
    if not value or _PLACEHOLDER.match(value):
        return None
    return value


def _bool(env: Mapping[str, str], name: str) -> bool:
    value = setting(env, name)
    if value is None:
        return False
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ConfigError(name, f"not a yes/no value; {_BOOL_HELP}")


def _tiers(env: Mapping[str, str]) -> frozenset[Tier]:
    value = setting(env, "SEVDESK_ALLOW")
    if value is None:
        return DEFAULT_TIERS
    try:
        named = {Tier.parse(part) for part in value.split(",") if part.strip()}
    except ValueError:
        allowed = ", ".join(str(t) for t in Tier)
        raise ConfigError(
            "SEVDESK_ALLOW", f"unknown tier; use a comma-separated list of {allowed}"
        ) from None
    return frozenset(named | DEFAULT_TIERS)  # reads underlie every write's preview


def _toolsets(env: Mapping[str, str]) -> frozenset[str] | None:
    value = setting(env, "SEVDESK_TOOLSETS")
    if value is None:
        return None
    names = {part.strip().lower() for part in value.split(",") if part.strip()}
    if not names or not all(_TOOLSET_NAME.match(n) for n in names):
        raise ConfigError(
            "SEVDESK_TOOLSETS", "use a comma-separated list of toolset names, such as meta"
        )
    return frozenset(names)


def _structured(env: Mapping[str, str]) -> StructuredOutput:
    value = (setting(env, "SEVDESK_STRUCTURED_OUTPUT") or "auto").lower()
    if value == "on":
        return "on"
    if value == "off":
        return "off"
    if value == "auto":
        return "auto"
    raise ConfigError("SEVDESK_STRUCTURED_OUTPUT", "use auto (2026-07-28 clients only), on or off")

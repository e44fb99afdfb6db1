"""How one variable is read, for every setting: unset values and yes/no values."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from sevdesk_mcp.errors import ConfigError

_PLACEHOLDER: Final = re.compile(r"^\$\{[^}]*\}$")
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off"})
_BOOL_HELP: Final = "use one of 1, true, yes, on, 0, false, no, off"


def setting(env: Mapping[str, str], name: str) -> str | None:
    """:returns: the value of ``name``, or ``None`` if it counts as unset."""
    value = env.get(name, "").strip()
    if not value or _PLACEHOLDER.match(value):
        return None
    return value


def yes_no(env: Mapping[str, str], name: str, meaning: str = "") -> bool | None:
    """:returns: the yes/no setting ``name``, ``None`` when unset.

    :param meaning: what on and off mean, for the refusal (the accepted spellings otherwise).
    :raises ConfigError: for a value that is neither.
    """
    value = setting(env, name)
    if value is None:
        return None
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ConfigError(name, f"not a yes/no value; {meaning or _BOOL_HELP}")


def flag(env: Mapping[str, str], name: str, *, default: bool = False, meaning: str = "") -> bool:
    """:returns: the yes/no setting ``name`` (``default`` when unset).

    :raises ConfigError: for a value that is neither.
    """
    value = yes_no(env, name, meaning)
    return default if value is None else value

"""Configuration from the environment.

Rules shared by every variable:

- an empty value, whitespace, or an unsubstituted ``${user_config.…}`` placeholder (which some
  desktop clients pass for blank optional settings) counts as unset;
- a bad value raises :class:`~sevdesk_mcp.errors.ConfigError` naming the variable and the
  allowed values; the command line prints it as one line on stderr and exits with status 2.

The default is read-only: only the ``read`` tier is enabled.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final, Literal
from urllib.parse import unquote, urlsplit

import msgspec

from sevdesk_mcp.config.tax import TaxSettings, load_tax_settings
from sevdesk_mcp.config.values import flag as flag
from sevdesk_mcp.config.values import setting as setting
from sevdesk_mcp.config.values import yes_no as yes_no
from sevdesk_mcp.errors import ConfigError, KeychainError, StartupError
from sevdesk_mcp.safety.locale import LANGS, Lang, as_lang
from sevdesk_mcp.safety.redact import REDACTOR, Secret
from sevdesk_mcp.safety.tiers import DEFAULT_TIERS, Tier
from sevdesk_mcp.sevdesk.pacing import DEFAULT_RATE_PER_S
from sevdesk_mcp.sevdesk.paths import DEFAULT_API_URL

StructuredOutput = Literal["auto", "on", "off"]
ConfirmMode = Literal["elicit", "browser", "off"]

_TOOLSET_NAME: Final = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_SECRET_FILE_BYTES: Final = 4096
_TOKEN: Final = re.compile(r"^[A-Za-z0-9_-]{8,256}$")
_WORD_BREAK: Final = re.compile(r"[\s=]+")


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
    output_schemas: bool = False
    api_url: str = DEFAULT_API_URL
    proxy: str | None = None
    output_dir: Path | None = None
    file_dirs: tuple[Path, ...] = ()
    confirm: ConfirmMode = "elicit"
    confirm_open: bool = True
    audit_log: Path | None = None
    rate_per_s: float = DEFAULT_RATE_PER_S
    tax: TaxSettings = TaxSettings()
    language: Lang = "en"
    rehearse: bool = False
    rehearse_file: Path | None = None

    def allows(self, tier: Tier) -> bool:
        """:returns: whether tools of ``tier`` may be registered and called."""
        return tier in self.tiers


def load_config(env: Mapping[str, str]) -> Config:
    """Read the configuration from ``env``.

    :raises ConfigError: if a value is invalid.
    """
    read_only = flag(env, "SEVDESK_READ_ONLY")
    tiers = _tiers(env)
    return Config(
        tiers=DEFAULT_TIERS if read_only else tiers,
        read_only=read_only,
        toolsets=_toolsets(env),
        dry_run=flag(env, "SEVDESK_DRY_RUN"),
        structured_output=_structured(env),
        output_schemas=flag(
            env,
            "SEVDESK_OUTPUT_SCHEMAS",
            meaning="on: tools/list names each read tool's output schema (for clients that "
            "check structuredContent); off (the default): structuredContent is sent without",
        ),
        api_url=_api_url(env),
        proxy=_proxy(env),
        output_dir=_output_dir(env),
        file_dirs=_file_dirs(env),
        confirm=_rehearsal_confirm(env) or _confirm(env),
        confirm_open=flag(env, "SEVDESK_CONFIRM_OPEN", default=True),
        audit_log=_audit_log(env),
        rate_per_s=_rate(env),
        tax=load_tax_settings(env),
        language=_chosen_language(env),
        rehearse=rehearse_requested(env),
        rehearse_file=_rehearse_file(env),
    )


def _chosen_language(env: Mapping[str, str]) -> Lang:
    """:returns: the language of :func:`_language`, or of the yes/no switch ``SEVDESK_GERMAN``
    (the Claude Desktop bundle's checkbox: yes is ``de``, no is ``en``).

    :raises ConfigError: as :func:`_language`, or if the switch contradicts
        ``SEVDESK_LANGUAGE``.
    """
    german = yes_no(env, "SEVDESK_GERMAN")
    if german is None:
        return _language(env)
    switched: Lang = "de" if german else "en"
    if setting(env, "SEVDESK_LANGUAGE") is not None and _language(env) != switched:
        raise ConfigError("SEVDESK_GERMAN", "contradicts SEVDESK_LANGUAGE: set only one")
    return switched


def demo_requested(env: Mapping[str, str]) -> bool:
    """:returns: whether ``SEVDESK_DEMO`` asks for the demo books, as ``--demo`` does (for
    clients that configure servers by environment only, such as the Claude Desktop bundle).

    :raises ConfigError: for a value that is not yes/no.
    """
    return flag(env, "SEVDESK_DEMO", meaning="1 serves the invented demo books, 0 the account")


def rehearse_requested(env: Mapping[str, str]) -> bool:
    """:returns: whether ``SEVDESK_REHEARSE`` asks for a rehearsal, as ``--rehearse`` does: the
    account is read as usual and every write stays on this machine (docs/rehearsal.md).

    :raises ConfigError: for a value that is not yes/no.
    """
    return flag(
        env,
        "SEVDESK_REHEARSE",
        meaning="on rehearses (every write stays on this machine), off (the default) does not",
    )


def _rehearsal_confirm(env: Mapping[str, str]) -> ConfirmMode | None:
    """:returns: ``off`` when ``SEVDESK_REHEARSE_CONFIRM=off`` turns approvals off for the
    rehearsal (nothing reaches sevDesk, so nothing binding can happen); ``None`` otherwise.

    :raises ConfigError: for a value that is not yes/no, or ``off`` without a rehearsal.
    """
    asks = yes_no(
        env,
        "SEVDESK_REHEARSE_CONFIRM",
        meaning="off skips the approvals of a rehearsal, on (the default) asks them",
    )
    if asks is None or asks:
        return None
    if not rehearse_requested(env):
        raise ConfigError(
            "SEVDESK_REHEARSE_CONFIRM",
            "off applies to a rehearsal only; set SEVDESK_REHEARSE=on (or --rehearse) too, "
            "or unset it",
        )
    return "off"


def _rehearse_file(env: Mapping[str, str]) -> Path | None:
    """:returns: the file ``SEVDESK_REHEARSE_FILE`` keeps a rehearsal in between runs
    (encrypted with a key from the OS keychain); ``None``: the rehearsal lives in memory and is
    gone at the end.

    :raises ConfigError: for a path that is not absolute, whose folder does not exist, or that
        is given without a rehearsal.
    """
    value = setting(env, "SEVDESK_REHEARSE_FILE")
    if value is None:
        return None
    if not rehearse_requested(env):
        raise ConfigError(
            "SEVDESK_REHEARSE_FILE",
            "keeps a rehearsal; set SEVDESK_REHEARSE=on (or --rehearse) too, or unset it",
        )
    path = Path(value).expanduser()
    if not path.is_absolute() or not path.parent.is_dir() or path.is_dir():
        raise ConfigError(
            "SEVDESK_REHEARSE_FILE", "use the absolute path of a file in an existing folder"
        )
    return path


def _language(env: Mapping[str, str]) -> Lang:
    """:returns: the language a person reads (approval questions, pages without a browser
    preference, progress): ``SEVDESK_LANGUAGE``, else the locale's (``LC_ALL``, ``LANG``), else
    English.

    :raises ConfigError: for a ``SEVDESK_LANGUAGE`` other than ``de`` or ``en``.
    """
    value = setting(env, "SEVDESK_LANGUAGE")
    if value is not None:
        if value.lower() not in LANGS:
            raise ConfigError("SEVDESK_LANGUAGE", f"{value!r} is not a language here; use de or en")
        return as_lang(value)
    return as_lang(setting(env, "LC_ALL") or setting(env, "LANG"))


def _confirm(env: Mapping[str, str]) -> ConfirmMode:
    """:returns: the confirmation mode: ``SEVDESK_CONFIRM``, or ``browser`` when the yes/no
    switch ``SEVDESK_CONFIRM_BROWSER`` (the Claude Desktop bundle's checkbox) is on.

    :raises ConfigError: for an unknown mode, ``off`` without its acknowledgement, or the
        switch contradicting ``SEVDESK_CONFIRM``.
    """
    browser = flag(env, "SEVDESK_CONFIRM_BROWSER")
    mode = _confirm_mode(env, "browser" if browser else "elicit")
    if browser and mode != "browser":
        raise ConfigError(
            "SEVDESK_CONFIRM_BROWSER", f"is on, but SEVDESK_CONFIRM is {mode}: set only one"
        )
    return mode


def _confirm_mode(env: Mapping[str, str], default: ConfirmMode) -> ConfirmMode:
    """:returns: ``SEVDESK_CONFIRM``, or ``default`` when it is unset.

    :raises ConfigError: for an unknown mode, or ``off`` without its acknowledgement.
    """
    value = (setting(env, "SEVDESK_CONFIRM") or default).lower()
    if value == "elicit":
        return "elicit"
    if value == "browser":
        return "browser"
    if value != "off":
        raise ConfigError("SEVDESK_CONFIRM", "use elicit (default), browser or off")
    if not flag(env, "SEVDESK_I_UNDERSTAND_NO_CONFIRM"):
        raise ConfigError(
            "SEVDESK_CONFIRM",
            "off runs binding actions without asking anyone; it needs "
            "SEVDESK_I_UNDERSTAND_NO_CONFIRM=1 as well",
        )
    return "off"


MIN_RATE_PER_S: Final = 0.5
MAX_RATE_PER_S: Final = 1000.0


def _rate(env: Mapping[str, str]) -> float:
    value = setting(env, "SEVDESK_RATE_PER_S")
    if value is None:
        return DEFAULT_RATE_PER_S
    try:
        rate = float(value)
    except ValueError:
        rate = -1.0
    if not MIN_RATE_PER_S <= rate <= MAX_RATE_PER_S:
        raise ConfigError(
            "SEVDESK_RATE_PER_S",
            f"use a number of requests per second from {MIN_RATE_PER_S:g} to {MAX_RATE_PER_S:g}",
        )
    return rate


def _audit_log(env: Mapping[str, str]) -> Path | None:
    value = setting(env, "SEVDESK_AUDIT_LOG")
    if value is None:
        return None
    path = Path(value).expanduser()
    if not path.is_absolute() or not path.parent.is_dir() or path.is_dir():
        raise ConfigError(
            "SEVDESK_AUDIT_LOG", "use the absolute path of a file in an existing folder"
        )
    return path


def _output_dir(env: Mapping[str, str]) -> Path | None:
    value = setting(env, "SEVDESK_OUTPUT_DIR")
    if value is None:
        return None
    path = Path(value).expanduser()
    if not path.is_absolute() or not path.is_dir():
        raise ConfigError("SEVDESK_OUTPUT_DIR", "use the absolute path of an existing folder")
    return path.resolve()


def _file_dirs(env: Mapping[str, str]) -> tuple[Path, ...]:
    """The folders receipts may be read from: absolute, existing, as their resolved real paths
    (so a symlinked folder is checked where it really is)."""
    value = setting(env, "SEVDESK_FILE_DIRS")
    if value is None:
        return ()
    folders: list[Path] = []
    for part in (p.strip() for p in value.split(os.pathsep)):
        if not part:
            continue
        path = Path(part).expanduser()
        if not path.is_absolute() or not path.is_dir() or ".." in path.parts:
            raise ConfigError(
                "SEVDESK_FILE_DIRS",
                f"use absolute paths of existing folders without '..', separated by "
                f"'{os.pathsep}' ({part!r} is not one)",
            )
        folders.append(Path(os.path.realpath(path)))
    return tuple(dict.fromkeys(folders))


def load_token(env: Mapping[str, str]) -> Secret | None:
    """Read the sevDesk API token from ``SEVDESK_API_TOKEN`` or ``SEVDESK_API_TOKEN_FILE``.

    :returns: the token, or ``None`` if neither is set.
    :raises ConfigError: if both are set, the file cannot be read, or the value is malformed.
    """
    direct, path = setting(env, "SEVDESK_API_TOKEN"), setting(env, "SEVDESK_API_TOKEN_FILE")
    if direct and path:
        raise ConfigError("SEVDESK_API_TOKEN", "set either it or SEVDESK_API_TOKEN_FILE, not both")
    if path:
        text = read_secret_file("SEVDESK_API_TOKEN_FILE", path, "a token")
        return _token("SEVDESK_API_TOKEN_FILE", text)
    return _token("SEVDESK_API_TOKEN", direct) if direct else None


KEYCHAIN_ENTRY: Final = "SEVDESK_KEYCHAIN_ENTRY"


def require_token(env: Mapping[str, str]) -> Secret:
    """:returns: the token from ``SEVDESK_API_TOKEN`` or ``SEVDESK_API_TOKEN_FILE``, else from
        the OS keychain (entry ``SEVDESK_KEYCHAIN_ENTRY``, by default ``default``).

    The keychain is only looked at when neither variable is set (``keyring`` is imported then).

    :raises ConfigError: as :func:`load_token`.
    :raises StartupError: if there is no token anywhere, saying where to put one.
    :raises KeychainError: if ``SEVDESK_KEYCHAIN_ENTRY`` is set and the keychain cannot be used.
    """
    token = load_token(env)
    if token is not None:
        return token
    from sevdesk_mcp.safety import keychain  # noqa: PLC0415 - only without a token variable

    explicit = setting(env, KEYCHAIN_ENTRY)
    entry = explicit or keychain.DEFAULT_ENTRY
    try:
        token = keychain.read(entry)
    except KeychainError as exc:
        if explicit:
            raise
        raise StartupError(
            f"SEVDESK_API_TOKEN is not set, and {keychain.NO_BACKEND} Or run with --demo to "
            "try the server on invented books."
        ) from exc
    if token is None:
        raise StartupError(
            f"SEVDESK_API_TOKEN is not set, and the OS keychain holds no token (entry "
            f"{entry!r}). Set it (or SEVDESK_API_TOKEN_FILE), store the token with "
            "'mcp-server-sevdesk token set', or run with --demo to try the server on invented "
            "books."
        )
    return _token("the keychain entry", token.reveal())


def read_secret_file(variable: str, path: str, what: str) -> str:
    """:returns: the stripped text of a file holding one secret (at most 4 KiB), named by the
        setting ``variable`` that points to it.

    :param what: the secret in plain words, for the refusal (``"a token"``).
    :raises ConfigError: if the file cannot be read or is too large to hold ``what``.
    """
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(MAX_SECRET_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(variable, f"cannot read the file ({exc.strerror})") from None
    if len(data) > MAX_SECRET_FILE_BYTES:
        raise ConfigError(variable, f"the file is too large to hold {what}")
    return data.decode("utf-8", errors="replace").strip()


def _token(variable: str, value: str) -> Secret:
    _register(value)  # before any check can fail: it must never reach a log line or a result
    if value.lower().startswith("bearer ") or "=" in value:
        raise ConfigError(
            variable,
            "give the bare token: no 'Bearer ' prefix, no NAME= (sevDesk refuses both with 401)",
        )
    if not _TOKEN.match(value):
        raise ConfigError(variable, "not a sevDesk API token (expected 32 letters and digits)")
    return Secret(value)


def _register(value: str) -> None:
    """Register a token as read, and the bare token inside a ``Bearer …`` or ``NAME=…`` value."""
    REDACTOR.add(value)
    REDACTOR.add(_WORD_BREAK.split(value)[-1])


def _api_url(env: Mapping[str, str]) -> str:
    value = setting(env, "SEVDESK_API_URL")
    if value is None:
        return DEFAULT_API_URL
    if not is_safe_url(value):
        raise ConfigError(
            "SEVDESK_API_URL",
            "use an https:// URL without user, query or fragment (plain http only for "
            "127.0.0.1, ::1 or localhost)",
        )
    return value.rstrip("/")


def _proxy(env: Mapping[str, str]) -> str | None:
    value = setting(env, "SEVDESK_PROXY")
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.password:  # the proxy's credentials are secrets like the token
        REDACTOR.add(parts.netloc.rpartition("@")[0])
        REDACTOR.add(parts.password)
        REDACTOR.add(unquote(parts.password))
    if parts.scheme not in ("http", "https"):
        raise ConfigError("SEVDESK_PROXY", "use an http:// or https:// proxy URL")
    return value


def is_safe_url(value: str) -> bool:
    """:returns: whether ``value`` is https, or http to a loopback host, with nothing extra."""
    parts = urlsplit(value)
    if parts.username or parts.password or parts.query or parts.fragment or not parts.hostname:
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and is_loopback(parts.hostname)


def is_loopback(host: str) -> bool:
    """:returns: whether ``host`` names this machine (127.0.0.0/8, ::1 or localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_SHOWN_WORD: Final = re.compile(r"^[A-Za-z]{1,20}$")


def _tiers(env: Mapping[str, str]) -> frozenset[Tier]:
    """:returns: the tiers of ``SEVDESK_ALLOW`` and of the yes/no switches
    ``SEVDESK_ALLOW_WRITE``, ``SEVDESK_ALLOW_COMMIT`` and ``SEVDESK_ALLOW_EXTERNAL`` (the
    Claude Desktop bundle's checkboxes), always with ``read``.

    :raises ConfigError: for an unknown tier name or a switch that is not yes/no.
    """
    switched = {t for t in Tier if t is not Tier.READ and flag(env, f"SEVDESK_ALLOW_{t.name}")}
    value = setting(env, "SEVDESK_ALLOW")
    named = set() if value is None else {_tier(part) for part in value.split(",") if part.strip()}
    return frozenset(named | switched | DEFAULT_TIERS)  # reads underlie every write's preview


def _tier(name: str) -> Tier:
    """:returns: the tier called ``name``.

    :raises ConfigError: if there is none; the name is repeated when it is a short word (a
        longer value could be a secret pasted into the wrong variable).
    """
    try:
        return Tier.parse(name)
    except ValueError:
        allowed = ", ".join(str(t) for t in Tier)
        shown = repr(name.strip()) if _SHOWN_WORD.match(name.strip()) else "the value given"
        raise ConfigError(
            "SEVDESK_ALLOW",
            f"{shown} is not a tier; use a comma-separated list of {allowed}",
        ) from None


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

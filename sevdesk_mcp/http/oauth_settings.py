"""The ``SEVDESK_HTTP_OAUTH_*`` settings and ``SEVDESK_HTTP_STATE_DIR`` (OAuth mode only)."""

from __future__ import annotations

import re
import ssl
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import msgspec

from sevdesk_mcp.config import flag, setting
from sevdesk_mcp.errors import ConfigError

ACCESS_TTL_S: Final = 3600
REFRESH_TTL_S: Final = 30 * 24 * 3600
CODE_TTL_S: Final = 60
CONSENT_TTL_S: Final = 600
CLOCK_SKEW_S: Final = 60
CA_FILE: Final = "SEVDESK_HTTP_OAUTH_CA_FILE"
MAX_CA_FILE_BYTES: Final = 1024 * 1024
_PEM_CERTIFICATE: Final = "-----BEGIN CERTIFICATE-----"
_HOST: Final = re.compile(
    r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$"
)


class OAuthSettings(msgspec.Struct, frozen=True):
    """What the operator configured for OAuth mode.

    :param state_dir: the folder of the grant store (locked while the server runs); ``None``
        when the grants are in the shared state (``SEVDESK_HTTP_STATE_URL``).
    :param client_hosts: the hosts whose metadata-document client ids are accepted, or
        ``None`` for every public host.
    :param registration: whether dynamic client registration (RFC 7591) is offered.
    :param loopback_clients: whether metadata documents may be fetched from loopback
        addresses (tests and local trials only; never in production).
    :param ca_pem: the certificate authorities (PEM) of ``SEVDESK_HTTP_OAUTH_CA_FILE``,
        trusted for metadata documents besides the public ones; ``None`` without the setting.
    """

    state_dir: Path | None
    client_hosts: frozenset[str] | None = None
    registration: bool = True
    loopback_clients: bool = False
    ca_pem: str | None = None


def load_oauth_settings(env: Mapping[str, str]) -> OAuthSettings:
    """Read the OAuth settings.

    :raises ConfigError: if a value is invalid or the state directory is not set.
    """
    return OAuthSettings(
        state_dir=_state_dir(env),
        client_hosts=_client_hosts(env),
        registration=flag(env, "SEVDESK_HTTP_OAUTH_REGISTRATION", default=True),
        loopback_clients=flag(env, "SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS", default=False),
        ca_pem=_ca_pem(env),
    )


def _state_dir(env: Mapping[str, str]) -> Path | None:
    value = setting(env, "SEVDESK_HTTP_STATE_DIR")
    shared = any(setting(env, n) for n in ("SEVDESK_HTTP_STATE_URL", "SEVDESK_HTTP_STATE_URL_FILE"))
    if value is None and shared:
        return None  # the grants are in Redis
    if value is None:
        raise ConfigError(
            "SEVDESK_HTTP_STATE_DIR",
            "OAuth mode keeps its grants in a folder of its own; set it to an absolute path "
            "(the server creates the folder, mode 0700), or set SEVDESK_HTTP_STATE_URL to keep "
            "them in Redis",
        )
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise ConfigError("SEVDESK_HTTP_STATE_DIR", "use an absolute path")
    return path


def _client_hosts(env: Mapping[str, str]) -> frozenset[str] | None:
    value = setting(env, "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS")
    if value is None:
        return None
    hosts = {part.strip().lower() for part in value.split(",") if part.strip()}
    if not hosts or not all(_HOST.match(h) for h in hosts):
        raise ConfigError(
            "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS",
            "use a comma-separated list of host names, such as claude.ai (no scheme, no port)",
        )
    return frozenset(hosts)


def _ca_pem(env: Mapping[str, str]) -> str | None:
    """:returns: the PEM certificates of ``SEVDESK_HTTP_OAUTH_CA_FILE``, read once at start-up.

    :raises ConfigError: if the file cannot be read, is larger than 1 MiB or is not PEM.
    """
    value = setting(env, CA_FILE)
    if value is None:
        return None
    try:
        with Path(value).expanduser().open("rb") as handle:
            data = handle.read(MAX_CA_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(
            CA_FILE, f"cannot read the file ({exc.strerror}); name a PEM file of certificates"
        ) from None
    if len(data) > MAX_CA_FILE_BYTES:
        raise ConfigError(CA_FILE, "the file is larger than 1 MiB; name a PEM file of certificates")
    text = data.decode("ascii", errors="ignore")  # comments may be UTF-8; PEM is ASCII
    if _PEM_CERTIFICATE not in text or not _loads(text):
        raise ConfigError(
            CA_FILE,
            "the file is not a PEM file of certificates (-----BEGIN CERTIFICATE----- blocks); "
            "convert a DER certificate with: openssl x509 -inform der -in CA.der -out CA.pem",
        )
    return text


def _loads(pem: str) -> bool:
    """:returns: whether ``pem`` holds certificates the TLS library accepts as authorities."""
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cadata=pem)
    except (ssl.SSLError, ValueError):
        return False
    return True

"""The ``SEVDESK_HTTP_*`` settings, read from the environment with the rules of ``config.py``.

- An empty value, whitespace or an unsubstituted ``${user_config.…}`` placeholder counts as unset.
- A bad value raises :class:`~sevdesk_mcp.errors.ConfigError` naming the variable and the allowed
  values; values are never echoed (a secret may have been pasted into the wrong variable).
- Secrets are registered with the redactor, and their pieces with the access log, the moment
  they are read.

What the server derives from them once it knows its port (public URL, allowed hosts and origins)
is a :class:`Site`; nothing is ever derived from request headers.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any, Final, Literal
from urllib.parse import parse_qs, unquote, urlsplit

import msgspec

from sevdesk_mcp.config import flag, is_loopback, is_safe_url, read_secret_file, setting
from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.http.limits import (
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_LIMIT,
    MAX_CONNECTIONS_PER_CLIENT,
    MAX_INFLIGHT,
    MAX_INFLIGHT_PER_CLIENT,
    RATE_BURST,
    RATE_PER_S,
    STREAMS_SHARE,
    Limits,
)
from sevdesk_mcp.http.oauth_settings import OAuthSettings, load_oauth_settings
from sevdesk_mcp.safety.redact import REDACTOR, Secret
from sevdesk_mcp.shared.keys import DEFAULT_NAMESPACE
from sevdesk_mcp.shared.redis import check_url

AuthMode = Literal["bearer", "oauth"]

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8080
MAX_TRUST_PROXY: Final = 10
MIN_SECRET_CHARS: Final = 32
MAX_SECRET_CHARS: Final = 512
LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1", "::1")
_SECRET: Final = re.compile(r"^[A-Za-z0-9._~+/=-]+$")
_HOSTNAME: Final = re.compile(
    r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$"
)
_NAMESPACE: Final = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_WILDCARDS: Final = ("0.0.0.0", "::")  # noqa: S104 - names, compared, never bound here


class HttpSettings(msgspec.Struct, frozen=True):
    """What the operator configured for HTTP mode.

    :param host: the address to bind.
    :param port: the port to bind; 0 picks a free one.
    :param public_url: the origin clients use (``https://mcp.example.de``), without a path.
    :param allowed_hosts: host names accepted in ``Host`` besides the derived ones.
    :param allowed_origins: origins accepted in ``Origin`` besides the derived ones.
    :param trust_proxy: how many reverse proxies append to ``X-Forwarded-For``.
    :param auth: the authentication mode, or ``None`` if none is configured.
    :param secrets: the accepted bearer secrets (in OAuth mode, the secrets the token keys are
        derived from): the current one first, then the previous one.
    :param oauth: the OAuth settings, in OAuth mode only.
    :param rate_per_s: requests per second one client address regains (token bucket).
    :param inflight_per_client: requests one client address may have running at once.
    :param sessions: whether 2025-era clients get sessions (``Mcp-Session-Id``), so the server
        can ask them (elicitation, sampling, roots) and keep their GET stream
        (``SEVDESK_HTTP_SESSIONS``); 2026-07-28 clients never use sessions.
    :param connections_per_client: connections one client address may hold at once; ``None``
        for the default, which is :data:`MAX_CONNECTIONS` behind trusted proxies (every
        connection then comes from a proxy) and :data:`MAX_CONNECTIONS_PER_CLIENT` otherwise.
    :param max_connections: connections served at once (``SEVDESK_HTTP_MAX_CONNECTIONS``); half
        of them may be open ``GET`` streams. Each needs a file descriptor: the server raises its
        soft limit as far as the hard limit allows.
    :param state_url: the Redis URL of the state several instances share
        (``SEVDESK_HTTP_STATE_URL``); ``None``: every store in this process.
    :param state_namespace: the prefix of every key in Redis (``SEVDESK_HTTP_STATE_NAMESPACE``).
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    public_url: str | None = None
    allowed_hosts: tuple[str, ...] | None = None
    allowed_origins: tuple[str, ...] | None = None
    trust_proxy: int = 0
    auth: AuthMode | None = None
    secrets: tuple[Secret, ...] = ()
    rate_per_s: int = int(RATE_PER_S)
    inflight_per_client: int = MAX_INFLIGHT_PER_CLIENT
    connections_per_client: int | None = None
    max_connections: int = MAX_CONNECTIONS
    oauth: OAuthSettings | None = None
    files: bool = True  # SEVDESK_HTTP_FILES: uploads and download links (OAuth mode, issue 23)
    sessions: bool = True
    state_url: str | None = None
    state_namespace: str = DEFAULT_NAMESPACE

    def __repr__(self) -> str:  # the state URL may carry Redis's password
        return msgspec.Struct.__repr__(self._shown())

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        return msgspec.Struct.__rich_repr__(self._shown())

    def _shown(self) -> HttpSettings:
        url = self.state_url
        if url is None or "@" not in urlsplit(url).netloc:
            return self
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        return msgspec.structs.replace(self, state_url=parts._replace(netloc=f"…@{host}").geturl())


def load_http_settings(env: Mapping[str, str]) -> HttpSettings:
    """Read the ``SEVDESK_HTTP_*`` settings.

    :raises ConfigError: if a value is invalid.
    """
    host = _host(env)
    public_url = _public_url(env)
    if public_url is None and not is_loopback(host):
        raise ConfigError(
            "SEVDESK_HTTP_PUBLIC_URL",
            "set the public https:// URL of the server when SEVDESK_HTTP_HOST is not a loopback "
            "address (Host and Origin checks are derived from it)",
        )
    auth = _auth(env)
    return HttpSettings(
        host=host,
        port=_int(env, "SEVDESK_HTTP_PORT", DEFAULT_PORT, 0, 65535),
        public_url=public_url,
        allowed_hosts=_hosts(env),
        allowed_origins=_origins(env),
        trust_proxy=_int(env, "SEVDESK_HTTP_TRUST_PROXY", 0, 0, MAX_TRUST_PROXY),
        auth=auth,
        secrets=_secrets(env) if auth is not None else (),
        rate_per_s=_int(env, "SEVDESK_HTTP_RATE_PER_S", int(RATE_PER_S), 1, 100_000),
        inflight_per_client=_int(
            env, "SEVDESK_HTTP_INFLIGHT_PER_CLIENT", MAX_INFLIGHT_PER_CLIENT, 1, MAX_INFLIGHT
        ),
        connections_per_client=_optional_int(
            env, "SEVDESK_HTTP_CONNECTIONS_PER_CLIENT", 1, MAX_CONNECTIONS_LIMIT
        ),
        max_connections=_int(
            env, "SEVDESK_HTTP_MAX_CONNECTIONS", MAX_CONNECTIONS, 16, MAX_CONNECTIONS_LIMIT
        ),
        oauth=load_oauth_settings(env) if auth == "oauth" else None,
        sessions=flag(
            env,
            "SEVDESK_HTTP_SESSIONS",
            default=True,
            meaning="on: 2025-era clients get sessions and can be asked (the default); off: "
            "every request stateless",
        ),
        files=_files(env),
        state_url=_state_url(env),
        state_namespace=_state_namespace(env),
    )


def _state_url(env: Mapping[str, str]) -> str | None:
    """:returns: ``SEVDESK_HTTP_STATE_URL`` (or the URL in ``SEVDESK_HTTP_STATE_URL_FILE``, so
        a password need not be in the environment); its password is masked in every log line.

    :raises ConfigError: if both are set, the file is unreadable, or the URL is not a
        ``redis://`` or ``rediss://`` URL.
    """
    found = _direct_or_file(env, "SEVDESK_HTTP_STATE_URL", "a Redis URL")
    if found is None:
        return None
    value = found[1]
    try:
        parts = urlsplit(value)
        passwords = [parts.password, *parse_qs(parts.query).get("password", [])]
    except ValueError:  # the check below names the form to use
        passwords = []
    for password in filter(None, passwords):  # before the check: a refusal must not show it
        REDACTOR.add(password)
        REDACTOR.add(unquote(password))  # the client decodes it; masked either way
    return check_url(value)


def _state_namespace(env: Mapping[str, str]) -> str:
    """:returns: ``SEVDESK_HTTP_STATE_NAMESPACE`` (default ``sevdesk-mcp``).

    :raises ConfigError: unless it is 1 to 64 letters, digits, ``.``, ``_`` or ``-``.
    """
    value = setting(env, "SEVDESK_HTTP_STATE_NAMESPACE")
    if value is None:
        return DEFAULT_NAMESPACE
    if not _NAMESPACE.match(value):
        raise ConfigError(
            "SEVDESK_HTTP_STATE_NAMESPACE",
            "use 1 to 64 letters, digits, dots, underscores or hyphens (one per deployment "
            "sharing a Redis)",
        )
    return value


def _files(env: Mapping[str, str]) -> bool:
    """:returns: ``SEVDESK_HTTP_FILES`` (file transfer in OAuth mode; on by default)."""
    return flag(env, "SEVDESK_HTTP_FILES", default=True)


def limits_for(settings: HttpSettings) -> Limits:
    """:returns: the server limits with the operator's per-client rate, in-flight and
    connection caps."""
    total = settings.max_connections
    connections = settings.connections_per_client
    if connections is None:
        connections = total if settings.trust_proxy else MAX_CONNECTIONS_PER_CLIENT
    return Limits(
        max_connections=total,
        max_streams=total // STREAMS_SHARE,
        rate_per_s=float(settings.rate_per_s),
        rate_burst=max(RATE_BURST, settings.rate_per_s),
        max_inflight_per_client=settings.inflight_per_client,
        max_connections_per_client=min(connections, total),
    )


def require_auth(settings: HttpSettings) -> None:
    """Refuse to serve HTTP without authentication.

    :raises ConfigError: naming ``SEVDESK_HTTP_AUTH`` if no mode is configured.
    """
    if settings.auth is None:
        raise ConfigError(
            "SEVDESK_HTTP_AUTH",
            "the HTTP server refuses to start without authentication; set it to bearer (one "
            "shared secret) or oauth (each user signs in with their own sevDesk token), and set "
            "SEVDESK_HTTP_SECRET (create one with: mcp-server-sevdesk generate-secret)",
        )


def _host(env: Mapping[str, str]) -> str:
    value = setting(env, "SEVDESK_HTTP_HOST")
    if value is None:
        return DEFAULT_HOST
    if value == "localhost":
        return value
    try:
        return str(ipaddress.ip_address(value.strip("[]")))
    except ValueError:
        raise ConfigError(
            "SEVDESK_HTTP_HOST", "use an IP address to bind, such as 127.0.0.1, ::1 or 0.0.0.0"
        ) from None


def _public_url(env: Mapping[str, str]) -> str | None:
    value = setting(env, "SEVDESK_HTTP_PUBLIC_URL")
    if value is None:
        return None
    parts = urlsplit(value)
    if not is_safe_url(value) or parts.path not in ("", "/"):
        raise ConfigError(
            "SEVDESK_HTTP_PUBLIC_URL",
            "use the https:// origin clients connect to, without path, user, query or fragment "
            "(plain http:// only for 127.0.0.1, ::1 or localhost)",
        )
    return _origin(parts.scheme, parts.hostname or "", parts.port)


def _auth(env: Mapping[str, str]) -> AuthMode | None:
    value = setting(env, "SEVDESK_HTTP_AUTH")
    if value is None:
        return None
    if value.lower() == "bearer":
        return "bearer"
    if value.lower() == "oauth":
        return "oauth"
    raise ConfigError(
        "SEVDESK_HTTP_AUTH",
        "use bearer (one shared secret) or oauth (OAuth 2.1; each user connects their own account)",
    )


def _secrets(env: Mapping[str, str]) -> tuple[Secret, ...]:
    found = _direct_or_file(env, "SEVDESK_HTTP_SECRET", "a secret")
    if found is None:
        raise ConfigError(
            "SEVDESK_HTTP_SECRET",
            "bearer mode needs a shared secret, and OAuth mode a secret to seal its tokens with; "
            "set it (or SEVDESK_HTTP_SECRET_FILE) to the output of: "
            "mcp-server-sevdesk generate-secret",
        )
    current = _secret(*found)
    previous = setting(env, "SEVDESK_HTTP_SECRET_PREVIOUS")
    if previous is None:
        return (current,)
    old = _secret("SEVDESK_HTTP_SECRET_PREVIOUS", previous)
    if old == current:
        raise ConfigError("SEVDESK_HTTP_SECRET_PREVIOUS", "must differ from the current secret")
    return (current, old)


def _direct_or_file(env: Mapping[str, str], name: str, what: str) -> tuple[str, str] | None:
    """:returns: the variable the value came from and the value: ``name`` itself, or the file
        that ``<name>_FILE`` names; ``None`` if neither is set.

    :param what: the value in plain words, for a refusal of the file (``"a secret"``).
    :raises ConfigError: if both are set, or the file is unreadable or too large.
    """
    direct = setting(env, name)
    path = setting(env, f"{name}_FILE")
    if direct and path:
        raise ConfigError(name, f"set either it or {name}_FILE, not both")
    if path:
        return f"{name}_FILE", read_secret_file(f"{name}_FILE", path, what)
    return None if direct is None else (name, direct)


def _secret(variable: str, value: str) -> Secret:
    REDACTOR.add(value)  # before any check can fail: never in a log line, nor a piece of it
    if not MIN_SECRET_CHARS <= len(value) <= MAX_SECRET_CHARS or not _SECRET.match(value):
        raise ConfigError(
            variable,
            f"use {MIN_SECRET_CHARS} to {MAX_SECRET_CHARS} characters of letters, digits and "
            "._~+/=- (create one with: mcp-server-sevdesk generate-secret)",
        )
    return Secret(value)


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    value = setting(env, name)
    if value is None:
        return default
    if not value.isdigit() or not low <= int(value) <= high:
        raise ConfigError(name, f"use a whole number from {low} to {high}")
    return int(value)


def _optional_int(env: Mapping[str, str], name: str, low: int, high: int) -> int | None:
    """:returns: the whole number ``name`` is set to, or ``None`` if it is unset.

    :raises ConfigError: if it is set to anything but a whole number from ``low`` to ``high``.
    """
    return None if setting(env, name) is None else _int(env, name, low, low, high)


def _hosts(env: Mapping[str, str]) -> tuple[str, ...] | None:
    value = setting(env, "SEVDESK_HTTP_ALLOWED_HOSTS")
    if value is None:
        return None
    names = [part.strip().lower() for part in value.split(",") if part.strip()]
    normal = [_host_name(name) for name in names]
    if not normal or None in normal:
        raise ConfigError(
            "SEVDESK_HTTP_ALLOWED_HOSTS",
            "use a comma-separated list of host names or IP addresses, without scheme or port",
        )
    return tuple(n for n in normal if n is not None)


def _host_name(name: str) -> str | None:
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        return name if _HOSTNAME.match(name) else None


def _origins(env: Mapping[str, str]) -> tuple[str, ...] | None:
    value = setting(env, "SEVDESK_HTTP_ALLOWED_ORIGINS")
    if value is None:
        return None
    origins = [normalize_origin(part.strip()) for part in value.split(",") if part.strip()]
    if not origins or None in origins:
        raise ConfigError(
            "SEVDESK_HTTP_ALLOWED_ORIGINS",
            "use a comma-separated list of origins such as https://claude.ai (scheme, host and "
            "optional port; no path)",
        )
    return tuple(o for o in origins if o is not None)


def normalize_origin(value: str) -> str | None:
    """:returns: ``value`` as ``scheme://host[:port]`` (lowercase, default port dropped), or
    ``None`` if it is not an http(s) origin."""
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.path or parts.query or parts.fragment or parts.username or parts.password:
        return None
    return _origin(parts.scheme.lower(), parts.hostname, port)


def _origin(scheme: str, hostname: str, port: int | None) -> str:
    host = f"[{hostname}]" if ":" in hostname else hostname
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return f"{scheme}://{host.lower()}"
    return f"{scheme}://{host.lower()}:{port}"


class Site(msgspec.Struct, frozen=True):
    """What the running server derives from its settings and its bound port.

    :param public_url: the origin every printed URL is built from.
    :param allowed_hosts: host names accepted in ``Host`` (ports are not compared).
    :param allowed_origins: origins accepted in ``Origin``.
    :param https: whether clients reach the server over https (HSTS is sent).
    :param trust_proxy: how many reverse proxies append to ``X-Forwarded-For``.
    """

    public_url: str
    allowed_hosts: frozenset[str]
    allowed_origins: frozenset[str]
    https: bool
    trust_proxy: int = 0

    @property
    def mcp_url(self) -> str:
        """:returns: the URL of the MCP endpoint."""
        return f"{self.public_url}/mcp"


def derive_site(settings: HttpSettings, port: int) -> Site:
    """:returns: the site for ``settings`` on the bound ``port``."""
    bind_host = "127.0.0.1" if settings.host in _WILDCARDS else settings.host
    public = settings.public_url or _origin("http", bind_host, port)
    parts = urlsplit(public)
    hostname = (parts.hostname or "").lower()
    hosts = {hostname}
    origins = {public}
    if settings.host not in _WILDCARDS:
        hosts.add(settings.host)
    if is_loopback(hostname) or is_loopback(settings.host):
        hosts.update(LOOPBACK_NAMES)
        origins.update(_origin("http", name, port) for name in LOOPBACK_NAMES)
    return Site(
        public_url=public,
        allowed_hosts=frozenset(hosts.union(settings.allowed_hosts or ())),
        allowed_origins=frozenset(origins.union(settings.allowed_origins or ())),
        https=parts.scheme == "https",
        trust_proxy=settings.trust_proxy,
    )

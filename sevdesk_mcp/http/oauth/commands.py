"""Operator commands of HTTP mode: ``healthcheck``, ``generate-secret``, ``grants list`` and
``grants revoke ID``.

``grants`` works on the grant store in ``SEVDESK_HTTP_STATE_DIR``. ``grants list`` reads it as
it is; ``grants revoke`` takes the directory's lock, so it runs while the server is stopped (a
running server holds the lock; a client can revoke its own grant at ``/revoke`` meanwhile).
With ``SEVDESK_HTTP_STATE_URL`` both work on the shared state in Redis, while the servers run.
``account-id`` lives with the identity lookup (``accounts.identity``).
"""

from __future__ import annotations

import datetime as dt
import secrets
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Final

import anyio
import httpx

from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.http.settings import HttpSettings, load_http_settings

if TYPE_CHECKING:
    from sevdesk_mcp.http.oauth.store import Grant, GrantStore

HEALTHCHECK_TIMEOUT_S: Final = 5.0
SECRET_BYTES: Final = 32
_LOCAL_FOR_WILDCARD: Final = {"0.0.0.0": "127.0.0.1", "::": "::1"}  # noqa: S104 - compared only


def generate_secret() -> int:
    """Print a new random bearer secret (256 bits, URL-safe) on stdout.

    :returns: 0.
    """
    print(secrets.token_urlsafe(SECRET_BYTES))  # noqa: T201 - the command's output
    return 0


def healthcheck(env: Mapping[str, str]) -> int:
    """Ask the local server's ``/healthz`` whether it is healthy.

    :returns: 0 if it answered ``{"status":"ok"}``, otherwise 1 (never 2: container health
        checks reserve it).
    """
    try:
        settings = load_http_settings(env)
    except ConfigError as exc:
        return _unhealthy(f"the configuration is invalid ({exc.variable})")
    host = _LOCAL_FOR_WILDCARD.get(settings.host, settings.host)
    url = f"http://{f'[{host}]' if ':' in host else host}:{settings.port}/healthz"
    try:
        response = httpx.get(url, timeout=HEALTHCHECK_TIMEOUT_S, trust_env=False)
        healthy = response.status_code == 200 and response.json() == {"status": "ok"}
    except (httpx.HTTPError, ValueError):
        return _unhealthy(f"no answer from {url}")
    return 0 if healthy else _unhealthy(f"{url} answered {response.status_code}")


def _unhealthy(reason: str) -> int:
    print(f"mcp-server-sevdesk healthcheck: unhealthy: {reason}", file=sys.stderr)  # noqa: T201
    return 1


GRANTS_USAGE: Final = "use: grants list, or grants revoke ID"


def grants(env: Mapping[str, str], operands: Sequence[str]) -> int:
    """``grants list`` and ``grants revoke ID``: in the shared state when
    ``SEVDESK_HTTP_STATE_URL`` is set (while the servers run), else in the state directory.

    :returns: 0 on success, 1 if the grant does not exist.
    :raises ConfigError: if OAuth mode is not configured, the operands are wrong, or the state
        URL is invalid.
    :raises StartupError: if the state cannot be read, or (revoke) the server holds the lock.
    :raises StateUnavailableError: if the shared state cannot be reached.
    """
    settings = _oauth_settings(env)
    if list(operands) == ["list"]:
        return anyio.run(_list, settings)
    if len(operands) == 2 and operands[0] == "revoke":
        return anyio.run(_revoke, settings, operands[1])
    raise ConfigError("grants", GRANTS_USAGE)


def _oauth_settings(env: Mapping[str, str]) -> HttpSettings:
    settings = load_http_settings(env)
    if settings.oauth is None:
        raise ConfigError("SEVDESK_HTTP_AUTH", "grants exist in OAuth mode only; set it to oauth")
    return settings


async def _list(settings: HttpSettings) -> int:
    from sevdesk_mcp.http.oauth.redis_store import state_dir  # noqa: PLC0415 - OAuth mode only
    from sevdesk_mcp.http.oauth.store import (  # noqa: PLC0415 - OAuth mode only
        STATE_FILE,
        MemoryGrantStore,
        read_state,
    )

    assert settings.oauth is not None  # _oauth_settings checked it
    async with _shared_store(settings) as shared:
        if shared is not None:
            _print_grants(await shared.grants())
        else:  # read as it is, without the lock: the server may be running
            state = read_state(state_dir(settings.oauth) / STATE_FILE)
            _print_grants(await MemoryGrantStore(state).grants())
    return 0


async def _revoke(settings: HttpSettings, grant_id: str) -> int:
    from sevdesk_mcp.http.oauth.redis_store import state_dir  # noqa: PLC0415 - OAuth mode only
    from sevdesk_mcp.http.oauth.store import FileGrantStore  # noqa: PLC0415 - OAuth mode only

    assert settings.oauth is not None  # _oauth_settings checked it
    async with _shared_store(settings) as shared:
        store = shared or FileGrantStore(state_dir(settings.oauth))
        try:
            found = await store.revoke(grant_id)
        finally:
            await store.aclose()
    print(f"revoked {grant_id}" if found else f"no grant {grant_id}")  # noqa: T201
    return 0 if found else 1


@asynccontextmanager
async def _shared_store(settings: HttpSettings) -> AsyncIterator[GrantStore | None]:
    """:returns: the grant store on Redis if ``SEVDESK_HTTP_STATE_URL`` is set, else ``None``.

    :raises ConfigError: if the URL is invalid or the redis extra is not installed.
    """
    if settings.state_url is None:
        yield None
        return
    from sevdesk_mcp.http.oauth.redis_store import RedisGrantStore  # noqa: PLC0415
    from sevdesk_mcp.shared.redis import open_state  # noqa: PLC0415

    secrets_ = [s.reveal() for s in settings.secrets]
    state = open_state(settings.state_url, secrets_, namespace=settings.state_namespace)
    try:
        yield RedisGrantStore(state)
    finally:
        await state.aclose()


def _print_grants(grants: list[Grant]) -> None:
    rows = [("grant", "account", "client", "tiers", "created", "expires")]
    rows += [
        (
            g.id,
            f"{g.account} {g.account_name}".strip(),
            g.client_id,
            ",".join(g.tiers),
            _date(g.created),
            _date(g.expires),
        )
        for g in grants
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())  # noqa: T201


def _date(epoch_s: int) -> str:
    return dt.datetime.fromtimestamp(epoch_s, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")

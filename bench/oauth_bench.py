"""The OAuth token check per request, in-process: at most 50 µs (issue 16).

Run by hand: ``python bench/oauth_bench.py``. Never imported by tests.

What ``/mcp`` pays per request in OAuth mode before its handler runs: the router's
authenticator reading ``Authorization: Bearer``, opening the sealed access token (base64url,
AES-256-GCM under the HKDF-derived access key), decoding its claims, checking issuer, audience
and expiry, looking the grant up in the store (so revocation is immediate) and checking the
client host against the allowlist (the router's synchronous ``check``, then the route's awaited
``confirm``; the memory store here, so the figure leaves out a shared store's round trip). Also
measured: the same check for a tampered token (401), which must cost about the same. Figures
are medians of ``ROUNDS`` rounds of ``CALLS`` calls.
Exit status 1 if the median of valid checks is above :data:`BUDGET_US`.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

import anyio

from sevdesk_mcp.accounts.identity import Identity
from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.messages import Headers
from sevdesk_mcp.http.oauth.cimd import CimdFetcher
from sevdesk_mcp.http.oauth.clients import ClientResolver
from sevdesk_mcp.http.oauth.core import AuthServer
from sevdesk_mcp.http.oauth.seal import Sealer
from sevdesk_mcp.http.oauth.store import Grant, MemoryGrantStore
from sevdesk_mcp.http.oauth.verifier import OAuthVerifier
from sevdesk_mcp.http.oauth_settings import OAuthSettings
from sevdesk_mcp.http.settings import HttpSettings, derive_site
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier

BUDGET_US: Final = 50.0
CALLS: Final = 20_000
ROUNDS: Final = 7
SECRET: Final = "bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz"  # noqa: S105
SEVDESK_TOKEN: Final = "0123456789abcdef0123456789abcdef"  # noqa: S105


async def _unused(token: Secret) -> Identity:
    raise AssertionError("the check never asks sevDesk")


async def _verifier() -> tuple[OAuthVerifier, str]:
    site = derive_site(HttpSettings(public_url="https://mcp.example.de"), 443)
    store = MemoryGrantStore()
    server = AuthServer(
        site=site,
        sealer=Sealer([Secret(SECRET)]),
        store=store,
        clients=ClientResolver(store, CimdFetcher(), frozenset({"claude.ai"})),
        allowed=frozenset(Tier),
        identify=_unused,
        settings=OAuthSettings(state_dir=Path("unused")),
    )
    now = int(time.time())
    grant = Grant(
        id="g_0123456789ab",
        account="84210",
        account_name="Bench GmbH",
        client_id="https://claude.ai/oauth/mcp-oauth-client-metadata",
        client_name="Claude",
        client_host="claude.ai",
        tiers=("read", "write"),
        created=now,
        expires=now + 3600,
    )
    await store.add_grant(grant)
    access = str(server.tokens(grant, SEVDESK_TOKEN)["access_token"])
    return OAuthVerifier(server), access


async def _median_us(check: Callable[[], Awaitable[object]]) -> float:
    rounds = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for _ in range(CALLS):
            await check()
        rounds.append((time.perf_counter() - started) / CALLS * 1e6)
    return statistics.median(rounds)


def _checked(verifier: OAuthVerifier, headers: Headers) -> Callable[[], Awaitable[object]]:
    async def check() -> object:
        try:
            return await verifier.confirm(verifier.check(headers))
        except HttpError as exc:
            return exc

    return check


async def _measure() -> int:
    verifier, access = await _verifier()
    good = Headers([(b"authorization", f"Bearer {access}".encode())])
    flipped = access[:40] + ("A" if access[40] != "A" else "B") + access[41:]
    bad = Headers([(b"authorization", f"Bearer {flipped}".encode())])
    valid_us = await _median_us(_checked(verifier, good))
    tampered_us = await _median_us(_checked(verifier, bad))
    print(
        f"OAuth token check, valid token:    {valid_us:6.1f} µs per request (budget {BUDGET_US:g})"
    )
    print(f"OAuth token check, tampered token: {tampered_us:6.1f} µs per request (401)")
    print(f"access token: {len(access)} characters")
    return 0 if valid_us <= BUDGET_US else 1


def main() -> int:
    """:returns: 0 within the budget, 1 above it."""
    return anyio.run(_measure)


if __name__ == "__main__":
    sys.exit(main())

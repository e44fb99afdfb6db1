"""The pieces of OAuth mode on their own: sealing, the grant store, settings, the resolver."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sevdesk_mcp.accounts.identity import IdentityLookup
from sevdesk_mcp.accounts.resolver import IDLE_S, MAX_CONTEXTS, AccountResolver
from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import ConfigError, InvalidTokenError, OAuthError, StartupError
from sevdesk_mcp.fake import DEMO_TOKEN
from sevdesk_mcp.http.oauth.core import tiers_of
from sevdesk_mcp.http.oauth.forms import parse_params
from sevdesk_mcp.http.oauth.redirects import redirect_matches, redirect_uri_allowed
from sevdesk_mcp.http.oauth.seal import Sealer
from sevdesk_mcp.http.oauth.store import (
    MAX_CLIENTS,
    STATE_FILE,
    FileGrantStore,
    Grant,
    MemoryGrantStore,
    RegisteredClient,
)
from sevdesk_mcp.http.oauth.verifier import GrantedAccess
from sevdesk_mcp.http.oauth_settings import load_oauth_settings
from sevdesk_mcp.http.settings import load_http_settings, require_auth
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from tests.http.helpers import PREVIOUS_SECRET, SECRET

ONE, TWO = Secret(SECRET), Secret(PREVIOUS_SECRET)


def grant(grant_id: str = "g_1", expires: int = 2**40) -> Grant:
    return Grant(
        id=grant_id,
        account="7",
        account_name="A",
        client_id="c_1",
        client_name="C",
        client_host=None,
        tiers=("read",),
        created=1,
        expires=expires,
    )


def test_sealed_tokens_open_only_for_their_purpose_and_across_rotation() -> None:
    old = Sealer([TWO]).seal("access", b"payload")
    rotated = Sealer([ONE, TWO])
    assert rotated.open("access", old) == b"payload"
    assert rotated.open("code", rotated.seal("code", b"x")) == b"x"
    for purpose, token in (("refresh", old), ("access", "!!"), ("access", "AAAA")):
        with pytest.raises(InvalidTokenError):
            rotated.open(purpose, token)  # type: ignore[arg-type]
    with pytest.raises(InvalidTokenError):
        Sealer([ONE]).open("access", old)  # the previous key is gone after rotation
    with pytest.raises(ValueError, match="at least one secret"):
        Sealer([])


@pytest.mark.anyio
async def test_the_file_store_persists_locks_its_directory_and_writes_0600(
    tmp_path: Path,
) -> None:
    store = FileGrantStore(tmp_path / "state")
    await store.add_grant(grant())
    await store.add_client(
        RegisteredClient(client_id="c_1", client_name="C", redirect_uris=(), created=1)
    )
    with pytest.raises(StartupError, match="in use by another server process"):
        FileGrantStore(tmp_path / "state")
    await store.aclose()
    again = FileGrantStore(tmp_path / "state")
    try:
        assert [g.id for g in await again.grants()] == ["g_1"]
        assert await again.client("c_1") is not None
        mode = stat.S_IMODE(os.stat(tmp_path / "state" / STATE_FILE).st_mode)
        assert mode == 0o600
    finally:
        await again.aclose()


def test_a_damaged_or_unreadable_state_stops_start_up_with_the_way_out(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text("{not json")
    with pytest.raises(StartupError, match="move it away"):
        FileGrantStore(tmp_path)
    (tmp_path / "file").write_text("")
    with pytest.raises(StartupError, match="point it to a writable folder"):
        FileGrantStore(tmp_path / "file" / "state")


@pytest.mark.anyio
async def test_rotation_replay_revocation_codes_and_the_client_cap() -> None:
    now = [100.0]
    store = MemoryGrantStore(clock=lambda: now[0])
    await store.add_grant(grant())
    rotated = await store.rotate("g_1", 0, 500)
    assert rotated is not None and rotated.generation == 1
    assert await store.rotate("g_1", 0, 500) is None  # replay
    assert await store.grant("g_1") is None
    assert await store.rotate("g_unknown", 0, 500) is None
    assert await store.claim_code("k", 160) == (True, None)
    await store.link_code("k", "g_2")
    assert await store.claim_code("k", 160) == (False, "g_2")
    await store.link_code("unknown", "g_3")
    await store.add_grant(grant("g_old", expires=150))
    now[0] = 200.0
    assert await store.grant("g_old") is None and await store.grants() == []
    for n in range(MAX_CLIENTS + 1):
        await store.add_client(
            RegisteredClient(client_id=f"c{n}", client_name="", redirect_uris=(), created=0)
        )
    assert await store.client("c0") is None
    assert await store.client(f"c{MAX_CLIENTS}") is not None
    assert await store.revoke("g_missing") is False


def test_oauth_settings_are_checked_and_named(tmp_path: Path) -> None:
    base = {"SEVDESK_HTTP_AUTH": "oauth", "SEVDESK_HTTP_SECRET": SECRET}
    with pytest.raises(ConfigError, match="SEVDESK_HTTP_STATE_DIR"):
        load_http_settings(base)
    with pytest.raises(ConfigError, match="absolute path"):
        load_oauth_settings({"SEVDESK_HTTP_STATE_DIR": "relative"})
    with pytest.raises(ConfigError, match="SEVDESK_HTTP_OAUTH_CLIENT_HOSTS"):
        load_oauth_settings(
            {
                "SEVDESK_HTTP_STATE_DIR": str(tmp_path),
                "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS": "https://x",
            }
        )
    with pytest.raises(ConfigError, match="SEVDESK_HTTP_OAUTH_REGISTRATION"):
        load_oauth_settings(
            {"SEVDESK_HTTP_STATE_DIR": str(tmp_path), "SEVDESK_HTTP_OAUTH_REGISTRATION": "maybe"}
        )
    with pytest.raises(ConfigError, match=r"use bearer .* or oauth"):
        load_http_settings({"SEVDESK_HTTP_AUTH": "basic"})
    with pytest.raises(ConfigError, match="a secret to seal its tokens with"):
        load_http_settings({"SEVDESK_HTTP_AUTH": "oauth", "SEVDESK_HTTP_STATE_DIR": str(tmp_path)})
    settings = load_http_settings(
        {
            **base,
            "SEVDESK_HTTP_STATE_DIR": str(tmp_path),
            "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS": "claude.ai, Example.com",
            "SEVDESK_HTTP_OAUTH_REGISTRATION": "off",
        }
    )
    require_auth(settings)
    assert settings.oauth is not None and settings.oauth.registration is False
    assert settings.oauth.client_hosts == frozenset({"claude.ai", "example.com"})


def test_scopes_forms_and_redirects() -> None:
    assert tiers_of("sevdesk:read offline_access sevdesk:commit") == {Tier.READ, Tier.COMMIT}
    for bad in ("sevdesk:admin", "read", "openid"):
        with pytest.raises(OAuthError, match="Unknown scope"):
            tiers_of(bad)
    with pytest.raises(OAuthError, match="at most"):
        parse_params("&".join(f"p{n}=1" for n in range(40)))
    with pytest.raises(OAuthError, match="malformed"):
        parse_params("state=%00")
    with pytest.raises(OAuthError, match="UTF-8"):
        parse_params("state=%ff")
    assert redirect_matches(("http://[::1]:1/cb",), "http://[::1]:2/cb")
    assert not redirect_matches(("http://127.0.0.1:1/cb",), "http://u@127.0.0.1:2/cb")
    assert not redirect_matches(("https://a.example/cb",), "http://127.0.0.1/cb")
    assert not redirect_uri_allowed("https://a.example:99999/cb")
    assert not redirect_uri_allowed("https://" + "a" * 3000)


def access(grant_id: str, account: str) -> GrantedAccess:
    return GrantedAccess(grant_id, account, "c", frozenset({Tier.WRITE}), Secret(DEMO_TOKEN))


@pytest.mark.anyio
async def test_the_resolver_caches_evicts_and_narrows_tiers() -> None:
    now = [0.0]
    config = load_config({"SEVDESK_ALLOW": "write", "SEVDESK_API_URL": "https://x.invalid/api/v1"})
    resolver = AccountResolver(config, IdentityLookup(config.api_url), clock=lambda: now[0])
    first = await resolver.context(access("g0", "1"))
    assert await resolver.context(access("g0", "1")) is first
    assert first.config.tiers == {Tier.READ, Tier.WRITE} and first.config.output_dir is None
    for n in range(1, MAX_CONTEXTS + 2):
        await resolver.context(access(f"g{n}", "1"))
    assert len(resolver) == MAX_CONTEXTS
    now[0] += IDLE_S
    fresh = await resolver.context(access("g0", "1"))
    assert fresh is not first and len(resolver) == 1
    resolver.forget("g0")
    assert len(resolver) == 0
    read_only = load_config({"SEVDESK_READ_ONLY": "1", "SEVDESK_ALLOW": "write"})
    narrowed = await AccountResolver(read_only, IdentityLookup(read_only.api_url)).context(
        access("g", "1")
    )
    assert narrowed.config.tiers == {Tier.READ}

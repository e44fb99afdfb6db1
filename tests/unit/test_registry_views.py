"""The registry's stamped client views: one per account context and tier, made once."""

from __future__ import annotations

import httpx

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.tools import registry

GATE = WriteGate(tiers=frozenset({Tier.READ, Tier.WRITE}), read_only=False)


def account() -> AccountContext:
    client = SevdeskClient(
        base_url="https://sevdesk.invalid/api/v1",
        token=Secret("t" * 32),
        gate=GATE,
        transport=httpx.MockTransport(lambda _: httpx.Response(500)),
    )
    return AccountContext(config=load_config({}), client=client)


def test_a_view_stamps_its_tier_and_shares_the_gate() -> None:
    plain = account()
    stamped = registry._stamped(plain, Tier.WRITE)
    assert stamped.client is not plain.client
    assert stamped.client is not None and stamped.client.gate is GATE
    assert stamped.client._stamp is Tier.WRITE
    assert plain.client is not None and plain.client._stamp is None
    assert stamped.config is plain.config


def test_views_are_made_once_per_account_and_tier() -> None:
    first, second = account(), account()
    read = registry._stamped(first, Tier.READ)
    assert registry._stamped(first, Tier.READ) is read
    assert registry._stamped(first, Tier.WRITE) is not read
    other = registry._stamped(second, Tier.READ)
    assert other is not read
    assert other.client is not None and second.client is not None
    assert other.client.pacer is second.client.pacer


def test_an_account_without_client_is_returned_as_is() -> None:
    bare = AccountContext(config=load_config({}))
    assert registry._stamped(bare, Tier.READ) is bare


def test_the_cache_is_bounded() -> None:
    accounts = [account() for _ in range(registry._STAMPED_ACCOUNTS + 5)]
    for each in accounts:
        registry._stamped(each, Tier.READ)
    assert len(registry._stamped_views) <= registry._STAMPED_ACCOUNTS

"""The account of the live tests, and the guard of the write tests."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

import pytest

from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.paths import DEFAULT_API_URL

TOKEN: Final = "SEVDESK_LIVE_TOKEN"
NO_TOKEN: Final = (
    "SEVDESK_LIVE_TOKEN is not set: live tests run only against a real (trial) account"
)
NO_WRITES: Final = (
    "SEVDESK_LIVE_WRITE is not 1: the write tests create and delete drafts only when asked to"
)
MIN_MARKER: Final = 6

requires_token = pytest.mark.skipif(not os.environ.get(TOKEN, "").strip(), reason=NO_TOKEN)


def live_url(env: Mapping[str, str] = os.environ) -> str:
    """:returns: the API root of the live account (``SEVDESK_LIVE_URL``, else sevDesk's)."""
    return (env.get("SEVDESK_LIVE_URL", "").strip() or DEFAULT_API_URL).rstrip("/")


def live_client(*, write: bool = False, env: Mapping[str, str] = os.environ) -> SevdeskClient:
    """:returns: the product's client for the live account: read-only, or with the ``write``
    tier (drafts; never ``commit`` or ``external``)."""
    tiers = frozenset({Tier.READ, Tier.WRITE} if write else {Tier.READ})
    return SevdeskClient(
        base_url=live_url(env),
        token=Secret(env[TOKEN].strip()),
        gate=WriteGate(tiers=tiers, read_only=not write),
    )


def write_refusal(env: Mapping[str, str], company: str | None) -> str | None:
    """:returns: why the write tests must not run on this account (``None``: they may).

    They run only with ``SEVDESK_LIVE_WRITE=1`` and a ``SEVDESK_LIVE_MARKER`` of at least six
    characters that the account's company name contains (the trial account the user named).
    """
    if env.get("SEVDESK_LIVE_WRITE", "").strip() != "1":
        return NO_WRITES
    marker = env.get("SEVDESK_LIVE_MARKER", "").strip()
    if len(marker) < MIN_MARKER:
        return (
            "Refused the write tests: set SEVDESK_LIVE_MARKER to at least 6 characters of the "
            "trial account's company name."
        )
    if company is None or marker.casefold() not in company.casefold():
        return (
            f"Refused the write tests: the account's company name {company!r} does not contain "
            f"SEVDESK_LIVE_MARKER={marker!r}; use the trial account the marker names."
        )
    return None

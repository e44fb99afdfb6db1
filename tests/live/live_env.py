"""The account of the live tests, and the guard of the write tests."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from live.session import settings_from

from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate

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
    """:returns: the API root of the live account (``SEVDESK_LIVE_URL``, else sevDesk's).

    :raises LiveSetupError: without a token, or for a URL that is not https (the live
        scripts' own check, ``live/session.py``).
    """
    return settings_from(env).url


def live_client(*, write: bool = False, env: Mapping[str, str] = os.environ) -> SevdeskClient:
    """:returns: the product's client for the live account: read-only, or with the ``write``
    tier (drafts; never ``commit`` or ``external``).

    :raises LiveSetupError: without a token, or for a URL that is not https.
    """
    settings = settings_from(env)
    tiers = frozenset({Tier.READ, Tier.WRITE} if write else {Tier.READ})
    return SevdeskClient(
        base_url=settings.url,
        token=Secret(settings.token),
        gate=WriteGate(tiers=tiers, read_only=not write),
    )


def write_refusal(env: Mapping[str, str], company: str | None, client_id: str | None) -> str | None:
    """:returns: why the write tests must not run on this account (``None``: they may).

    They run only with ``SEVDESK_LIVE_WRITE=1``, a ``SEVDESK_LIVE_MARKER`` of at least six
    characters that the account's company name contains, and ``SEVDESK_LIVE_CLIENT_ID`` equal
    to the account's SevClient id (the trial account the user named, not one whose name
    merely contains the marker).
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
    wanted = env.get("SEVDESK_LIVE_CLIENT_ID", "").strip()
    if not wanted or wanted != client_id:
        return (
            f"Refused the write tests: SEVDESK_LIVE_CLIENT_ID={wanted!r} is not the account's "
            f"SevClient id {client_id!r}; set it to the id GET /SevClient shows for the trial "
            "account."
        )
    return None

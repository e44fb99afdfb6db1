"""Canary: a whole session, errors included, never shows the sevDesk token anywhere."""

from __future__ import annotations

import json
import logging

import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.safety.redact import RedactingFilter
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.server import ServerFactory
from tests.demo_account import DEMO_URL, fake_client
from tests.wire import open_wire

pytestmark = pytest.mark.anyio
CANARY = "c4na7yc4na7yc4na7yc4na7yc4na7y00"


@pytest.mark.threat("S05")
async def test_the_token_never_appears_in_results_errors_or_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.handler.addFilter(RedactingFilter())
    caplog.set_level(logging.DEBUG)
    fake = FakeSevdesk(token=CANARY)
    config = load_config({"SEVDESK_API_URL": DEMO_URL, "SEVDESK_ALLOW": "write"})
    client = fake_client(fake, config, token=CANARY)
    await client.send(
        "POST",
        "/Contact",
        tier=Tier.WRITE,
        json={"name": "Canary GmbH", "category": {"id": 3, "objectName": "Category"}},
    )
    app = ServerFactory(config).build(AccountContext(config=config, client=client))
    frames = []
    async with open_wire(app) as wire:
        for name, arguments in [
            ("sevdesk_account_info", {}),
            ("sevdesk_search_contacts", {"query": "Canary"}),
            ("sevdesk_get_contact", {"contact_id": 999}),
            ("sevdesk_reference_data", {"kind": "units"}),
        ]:
            frames.append(await wire.modern("tools/call", {"name": name, "arguments": arguments}))
        fake.faults.fail_next(401)
        frames.append(await wire.modern("tools/call", {"name": "sevdesk_account_info"}))
        fake.faults.fail_next(500, times=5)
        frames.append(await wire.modern("tools/call", {"name": "sevdesk_search_contacts"}))
    logging.getLogger("sevdesk_mcp").error("while using token %s", CANARY)
    seen = json.dumps(frames) + caplog.text + repr(client) + repr(app)
    assert CANARY not in seen
    assert any(f["result"].get("isError") for f in frames)
    assert "[redacted]" in caplog.text

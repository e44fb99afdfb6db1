"""Account contexts on the fake sevDesk, and apps built from them, for tests."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import Config, load_config
from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk, build_demo
from sevdesk_mcp.fake.documents import Invoice
from sevdesk_mcp.fake.wire import Ref
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import Limits, SevdeskClient
from sevdesk_mcp.sevdesk.dates import BERLIN
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer

DEMO_URL = "https://demo.sevdesk.invalid/api/v1"
# Quick retries; the budget is only a guard against a hang, never a timing assertion.
FAST = Limits(backoff_base_s=0.001, backoff_cap_s=0.002, budget_s=60)


def fake_client(
    fake: FakeSevdesk, config: Config | None = None, token: str = DEMO_TOKEN, limits: Limits = FAST
) -> SevdeskClient:
    config = config or load_config({})
    return SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(token),
        gate=WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run),
        pacer=Pacer(rate_per_s=10_000, burst=10_000),
        limits=limits,
        transport=fake.transport(),
    )


def demo_app(env: dict[str, str] | None = None, fake: FakeSevdesk | None = None) -> McpApp:
    config = load_config({**(env or {}), "SEVDESK_API_URL": DEMO_URL})
    fake = fake or build_demo()
    client = fake_client(fake, config)
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    return ServerFactory(config).build(account)


def many_invoices(count: int) -> FakeSevdesk:
    """:returns: a fake holding only ``count`` open invoices of 11.90 EUR (lists that page)."""
    fake = FakeSevdesk(token=DEMO_TOKEN)
    day = dt.datetime(2026, 5, 4, tzinfo=BERLIN)
    for i in range(count):
        invoice = Invoice(
            invoiceDate=day,
            invoiceNumber=f"RE-{5000 + i}",
            status=200,
            sumNet=Decimal("10"),
            sumTax=Decimal("1.90"),
            sumGross=Decimal("11.90"),
            contact=Ref("Contact", 1),
            taxRule=Ref("TaxRule", 1),
        )
        fake.store.add(fake.store.invoices, invoice)
    return fake

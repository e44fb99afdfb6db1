"""Shared helpers of the finance tool tests: calls through the dispatcher, seeding, rewriting."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

import httpx

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.documents import Invoice
from sevdesk_mcp.fake.models import CheckAccount, CheckAccountTransaction, Contact, Part
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.wire import BERLIN, Ref
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer
from tests.demo_account import DEMO_URL, FAST
from tests.results.text_form import check_text
from tests.wire import open_wire

MANY = 2_500
Rewrite = Callable[[str, Any], Any]


def no_floats(value: str) -> Any:
    """A ``parse_float`` hook that fails the test: outputs carry money as decimal strings."""
    raise AssertionError(f"a float in a tool output: {value}")


async def call(app: McpApp, name: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool on the 2026 era; return the structured content of a success.

    The text content must be the same JSON, without a single float in it.
    """
    async with open_wire(app) as wire:
        answer = await wire.modern("tools/call", {"name": name, "arguments": arguments})
    result: dict[str, Any] = answer["result"]
    assert not result.get("isError"), result
    json.loads(result["content"][0]["text"], parse_float=no_floats)
    check_text(name, result)
    data: dict[str, Any] = result["structuredContent"]
    return data


async def call_error(app: McpApp, name: str, **arguments: Any) -> str:
    """Call a tool that must fail; return its error text."""
    async with open_wire(app) as wire:
        answer = await wire.modern("tools/call", {"name": name, "arguments": arguments})
    result = answer["result"]
    assert result.get("isError") is True, result
    return str(result["content"][0]["text"])


class RewritingTransport(httpx.AsyncBaseTransport):
    """Wraps the fake's transport and rewrites the ``objects`` of answers: a sevDesk that sends
    numbers where the fake sends strings, or leaves a field out."""

    def __init__(self, fake: FakeSevdesk, rewrite: Rewrite) -> None:
        self._inner = fake.transport()
        self._rewrite = rewrite

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        body = json.loads(await response.aread())
        if body.get("objects") is not None:
            body["objects"] = self._rewrite(request.url.path, body["objects"])
        return httpx.Response(response.status_code, json=body, request=request)


def client_for(fake: FakeSevdesk, rewrite: Rewrite | None = None) -> SevdeskClient:
    """:returns: a read-only client on ``fake``, optionally rewriting its answers."""
    config = load_config({"SEVDESK_API_URL": DEMO_URL})
    return SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(fake.token),
        gate=WriteGate(tiers=config.tiers, read_only=config.read_only, dry_run=config.dry_run),
        pacer=Pacer(rate_per_s=10_000, burst=10_000),
        limits=FAST,
        transport=RewritingTransport(fake, rewrite) if rewrite else fake.transport(),
    )


def app_for(fake: FakeSevdesk, rewrite: Rewrite | None = None) -> McpApp:
    """:returns: an app on ``fake`` (today is the fake's), optionally rewriting its answers;
    it lists output schemas (``SEVDESK_OUTPUT_SCHEMAS``), so results can be checked by them."""
    config = load_config({"SEVDESK_API_URL": DEMO_URL, "SEVDESK_OUTPUT_SCHEMAS": "on"})
    client = client_for(fake, rewrite)
    account = AccountContext(config=config, client=client, demo=True, today=lambda: fake.today)
    return ServerFactory(config).build(account)


def at(day: date, hour: int = 12, minute: int = 0) -> datetime:
    """:returns: ``day`` at ``hour:minute`` in Berlin."""
    return datetime.combine(day, time(hour, minute), tzinfo=BERLIN)


def requests_to(fake: FakeSevdesk, path: str) -> list[dict[str, str]]:
    """:returns: the query of every request the fake received for ``path``."""
    return [r.query for r in fake.requests if r.path == path]


def seed_vouchers(fake: FakeSevdesk, count: int = MANY, status: int = 100) -> Decimal:
    """Add ``count`` expense receipts of 11.90 gross, one position each.

    :returns: their gross sum.
    """
    store = fake.store
    for n in range(count):
        day = date(2026, 1, 1) + timedelta(days=n % 300)
        voucher = Voucher(
            voucherDate=at(day, 0),
            supplierName=f"Lieferant {n % 40}",
            description=f"BULK-{n:05d}",
            status=status,
            taxRule=Ref("TaxRule", 9),
            paymentDeadline=at(day + timedelta(days=14), 0),
        )
        store.add(store.vouchers, voucher)
        pos = VoucherPos(
            voucher=voucher.ref(),
            accountDatev=Ref("AccountDatev", 3494),
            taxRate=Decimal(19),
            sumNet=Decimal("10.00"),
            comment=f"Bürobedarf {n}",
        )
        pos.compute()
        voucher.set_sums([store.add(store.voucher_positions, pos)])
    return Decimal("11.90") * count


def seed_transactions(fake: FakeSevdesk, count: int = MANY, status: int = 100) -> CheckAccount:
    """Add an online account holding ``count`` transactions of 1.00 each.

    :returns: the account.
    """
    store = fake.store
    account = store.add(store.check_accounts, CheckAccount(name="Massenkonto", type="online"))
    for n in range(count):
        day = date(2026, 1, 1) + timedelta(days=n % 300)
        tx = CheckAccountTransaction(
            valueDate=at(day),
            entryDate=at(day),
            amount=Decimal("1.00"),
            checkAccount=account.ref(),
            status=status,
            payeePayerName=f"Kunde {n}",
            paymtPurpose=f"Posten {n}",
        )
        store.add(store.transactions, tx)
    return account


def seed_parts(fake: FakeSevdesk, count: int = MANY) -> None:
    """Add ``count`` active articles named ``Schraube …`` with 5 in stock each."""
    store = fake.store
    for n in range(count):
        part = Part(
            name=f"Schraube {n}",
            partNumber=f"SCH-{n:05d}",
            unity=Ref("Unity", 1),
            stock=Decimal(5),
            price=Decimal("0.10"),
            priceNet=Decimal("0.10"),
            priceGross=Decimal("0.12"),
            taxRate=Decimal(19),
        )
        store.add(store.parts, part)


def seed_open_invoices(fake: FakeSevdesk, count: int = MANY) -> Decimal:
    """Add ``count`` open invoices of 119.00 gross to one new customer.

    :returns: their gross sum.
    """
    store = fake.store
    customer = store.add(store.contacts, Contact(name="Großkunde AG", category=Ref("Category", 3)))
    for n in range(count):
        invoice = Invoice(
            invoiceDate=at(date(2026, 1, 1) + timedelta(days=n % 300), 0),
            contact=customer.ref(),
            invoiceNumber=f"RE-9{n:04d}",
            status=200,
            timeToPay=14,
            sumNet=Decimal(100),
            sumTax=Decimal(19),
            sumGross=Decimal(119),
        )
        store.add(store.invoices, invoice)
    return Decimal(119) * count


def seed_contacts(fake: FakeSevdesk, count: int = MANY) -> None:
    """Add ``count`` customers (stamped today by the fake's clock)."""
    store = fake.store
    for n in range(count):
        store.add(store.contacts, Contact(name=f"Neukunde {n}", category=Ref("Category", 3)))

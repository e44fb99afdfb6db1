"""The "real" account of the rehearsal tests (the demo books behind a counting proxy), a client
on top, and the scripted month-end run through the product's real client."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

import httpx

from sevdesk_mcp.fake import DEMO_TOKEN, DemoFacts, FakeSevdesk
from sevdesk_mcp.fake.wire import BERLIN
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.client import SevdeskClient, Upload
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer
from tests.demo_account import DEMO_URL, FAST

PDF = b"%PDF-1.4\n% receipt\n%%EOF\n"
SAVE = "/Voucher/Factory/saveVoucher"
ALL_TIERS = frozenset(Tier)
BOOKED_ON = int(datetime(2026, 11, 25, tzinfo=BERLIN).timestamp())  # bookAmount: Unix seconds


class CountingProxy(httpx.AsyncBaseTransport):
    """A transport in front of ``inner`` that counts what reaches it, by method."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.methods: Counter[str] = Counter()
        self.seen: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.methods[request.method] += 1
        self.seen.append((request.method, request.url.path))
        return await self.inner.handle_async_request(request)


def client_on(transport: httpx.AsyncBaseTransport) -> SevdeskClient:
    """:returns: the product's client, every tier enabled, on ``transport``."""
    return SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(DEMO_TOKEN),
        gate=WriteGate(tiers=ALL_TIERS),
        pacer=Pacer(rate_per_s=10_000, burst=10_000),
        limits=FAST,
        transport=transport,
    )


def one(answer: JsonValue) -> dict[str, Any]:
    """:returns: the single object of a GET by id."""
    assert isinstance(answer, list) and len(answer) == 1 and isinstance(answer[0], dict)
    return answer[0]


def many(answer: JsonValue) -> list[dict[str, Any]]:
    """:returns: the objects of a list answer."""
    assert isinstance(answer, list)
    return [r for r in answer if isinstance(r, dict)]


def ids_of(answer: JsonValue) -> set[int]:
    """:returns: the ids of a list answer's objects."""
    return {int(r["id"]) for r in many(answer)}


def obj(answer: JsonValue) -> dict[str, Any]:
    """:returns: an answer that is one object."""
    assert isinstance(answer, dict)
    return answer


def ref(name: str, ident: int | str) -> dict[str, Any]:
    return {"id": ident, "objectName": name}


def _position(net: str, pos_id: object = None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "objectName": "VoucherPos",
        "mapAll": True,
        "accountDatev": ref("AccountDatev", 3494),
        "taxRate": "19",
        "net": True,
        "sumNet": net,
    }
    if pos_id is not None:
        row["id"] = pos_id
    return row


def _voucher(status: int, **head: Any) -> dict[str, Any]:
    return {
        "objectName": "Voucher",
        "mapAll": True,
        "voucherDate": "20.11.2026",
        "supplierName": "Versandhaus Mercatura GmbH",
        "description": "302-5521907",
        "status": status,
        "creditDebit": "C",
        "voucherType": "VOU",
        "taxRule": ref("TaxRule", 9),
        "currency": "EUR",
        **head,
    }


@dataclass(frozen=True)
class Ids:
    """The records the month-end touches."""

    voucher: int
    paid_invoice: int
    finalized_invoice: int
    reminder: int
    overdue_invoice: int


async def month_end(client: SevdeskClient, facts: DemoFacts, fake: FakeSevdesk) -> Ids:
    """Run the month-end through ``client``: file a receipt (upload, draft, finalize), book a
    transaction against an open invoice, finalize a draft invoice, create a reminder.

    :returns: the ids of the records touched.
    """
    upload = obj(
        await client.upload(
            "/Voucher/Factory/uploadTempFile",
            Upload("r.pdf", PDF, "application/pdf"),
            tier=Tier.WRITE,
        )
    )
    draft = await client.send(
        "POST",
        SAVE,
        tier=Tier.WRITE,
        json={
            "voucher": _voucher(50),
            "voucherPosSave": [_position("75.62")],
            "voucherPosDelete": None,
            "filename": upload["filename"],
        },
    )
    saved = obj(draft)
    voucher_id = int(saved["voucher"]["id"])
    pos_id = saved["voucherPos"][0]["id"]
    await client.send(
        "POST",
        SAVE,
        tier=Tier.COMMIT,
        json={
            "voucher": _voucher(100, id=voucher_id),
            "voucherPosSave": [_position("75.62", pos_id)],
            "voucherPosDelete": None,
        },
    )
    invoice = fake.store.invoices.get(facts.matching_invoice_id)
    await client.send(
        "PUT",
        f"/Invoice/{invoice.id}/bookAmount",
        tier=Tier.COMMIT,
        json={
            "amount": str(invoice.sumGross),
            "date": BOOKED_ON,
            "type": "FULL_PAYMENT",
            "checkAccount": ref("CheckAccount", facts.bank_account_id),
            "checkAccountTransaction": ref(
                "CheckAccountTransaction", facts.matching_transaction_id
            ),
        },
    )
    draft_invoice = facts.invoice_ids_by_status[100][0]
    await client.send(
        "PUT",
        f"/Invoice/{draft_invoice}/sendBy",
        tier=Tier.COMMIT,
        json={"sendType": "VPDF", "sendDraft": False},
    )
    overdue = next(i for i in facts.overdue_invoice_ids if i != invoice.id)
    reminder = await client.send(
        "POST",
        "/Invoice/Factory/createInvoiceReminder",
        tier=Tier.WRITE,
        query={"invoice[id]": overdue, "invoice[objectName]": "Invoice"},
    )
    reminder_id = _id_of(reminder)
    return Ids(voucher_id, invoice.id, draft_invoice, reminder_id, overdue)


def _id_of(answer: JsonValue) -> int:
    record = many(answer)[0] if isinstance(answer, list) else obj(answer)
    return int(record["id"])


async def figures(client: SevdeskClient, ids: Ids) -> dict[str, Any]:
    """:returns: what the month-end moved, read through ``client``: status, number and paid
    amount of each record touched, and the open items."""
    out: dict[str, Any] = {}
    for name, path in (
        ("paid", f"/Invoice/{ids.paid_invoice}"),
        ("finalized", f"/Invoice/{ids.finalized_invoice}"),
        ("reminder", f"/Invoice/{ids.reminder}"),
        ("voucher", f"/Voucher/{ids.voucher}"),
    ):
        record = one(await client.get(path))
        out[name] = (
            record["status"],
            record.get("invoiceNumber", record.get("description")),
            Decimal(str(record.get("paidAmount") or 0)),
            record["sumGross"],
        )
    open_items = many(await client.get("/Invoice", {"status": 200, "limit": 1000}))
    out["open_items"] = sorted((str(r["invoiceNumber"]), str(r["sumGross"])) for r in open_items)
    return out

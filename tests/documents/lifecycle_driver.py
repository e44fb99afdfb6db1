"""Drives the fake sevDesk through one lifecycle step from one status, for the agreement test of
``sevdesk_mcp/domain/lifecycle_table.py``.

The document is the plain one the table speaks of: a draft of the demo books put into the status
(not festgeschrieben, paid as its status says, no credit note, not cancelled, positive sum), and
each step is the request that takes it in sevDesk (``docs/sevdesk-api.md`` §2.4-2.7).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

import httpx

from sevdesk_mcp.domain.lifecycle_table import GONE, Kind, Step
from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from sevdesk_mcp.fake.bookings import Payable, expected_sign
from sevdesk_mcp.fake.documents import ZERO
from sevdesk_mcp.fake.store import Table

MODELS: Final[dict[Kind, str]] = {
    "invoice": "Invoice",
    "credit_note": "CreditNote",
    "order": "Order",
    "voucher": "Voucher",
}
KEYS: Final[dict[Kind, str]] = {
    "invoice": "invoice",
    "credit_note": "creditNote",
    "order": "order",
    "voucher": "voucher",
}
TABLES: Final[dict[Kind, str]] = {
    "invoice": "invoices",
    "credit_note": "credit_notes",
    "order": "orders",
    "voucher": "vouchers",
}
REGISTER: Final = 5002  # the demo's cash register: sevDesk makes the transaction itself
MAIL: Final = {"toEmail": "kunde@example.com", "subject": "Ihre Rechnung", "text": "Guten Tag"}
ACTIONS: Final = {
    Step.FINALIZE: ("PUT", "sendBy"),
    Step.ENSHRINE: ("PUT", "enshrine"),
    Step.EMAIL: ("POST", "sendViaEmail"),
    Step.PAY_PART: ("PUT", "bookAmount"),
    Step.PAY_REST: ("PUT", "bookAmount"),
    Step.CANCEL: ("POST", "cancelInvoice"),
    Step.RESET_TO_OPEN: ("PUT", "resetToOpen"),
    Step.RESET_TO_DRAFT: ("PUT", "resetToDraft"),
}
REFUSALS: Final = frozenset({404, 409, 422})  # a 400 would be a malformed request of ours


@dataclass(frozen=True, slots=True)
class Seen:
    """What the fake did: ``status`` after an accepted step (``GONE`` when deleted), or the
    HTTP status and sevDesk code of its refusal."""

    status: int | None
    refused: tuple[int, int | None] | None = None


def table(fake: FakeSevdesk, kind: Kind) -> Table[Any]:
    """:returns: the fake's table of documents of ``kind``."""
    found: Table[Any] = getattr(fake.store, TABLES[kind])
    return found


def plain_document(fake: FakeSevdesk, facts: DemoFacts, kind: Kind, status: int) -> Any:
    """:returns: a draft of the demo books of ``kind``, put into ``status`` as a plain document."""
    drafts = {
        "invoice": facts.invoice_ids_by_status[100][0],
        "voucher": facts.voucher_ids_by_status[50][0],
    }
    ident = drafts.get(kind) or next(d.id for d in table(fake, kind) if d.status == 100)
    doc = table(fake, kind).get(ident)
    doc.status = status
    if hasattr(doc, "enshrined"):
        doc.enshrined = None
    if hasattr(doc, "paidAmount"):
        doc.paidAmount = {750: doc.sumGross / 2, 1000: doc.sumGross}.get(status, ZERO)
    assert doc.sumGross > 0
    return doc


async def drive(client: httpx.AsyncClient, kind: Kind, doc: Any, step: Step) -> httpx.Response:
    """Send the request of ``step`` on ``doc``.

    :returns: the fake's answer.
    """
    model = MODELS[kind]
    if step is Step.CREDIT_NOTE:
        body = {"invoice": {"id": doc.id, "objectName": "Invoice"}}
        return await client.post("/CreditNote/Factory/createFromInvoice", json=body)
    if step is Step.UPDATE_DRAFT:
        top = {"id": doc.id, "objectName": model, "mapAll": True, "header": "Geändert"}
        return await client.post(f"/{model}/Factory/save{model}", json={KEYS[kind]: top})
    if step is Step.DELETE_DRAFT:
        return await client.delete(f"/{model}/{doc.id}")
    method, action = ACTIONS[step]
    return await client.request(method, f"/{model}/{doc.id}/{action}", json=_body(kind, doc, step))


def seen(fake: FakeSevdesk, kind: Kind, ident: int, response: httpx.Response) -> Seen:
    """:returns: what the fake did with the request ``response`` answers.

    :raises AssertionError: for an answer that is neither an acceptance nor a refusal of the
        state machine (a malformed request).
    """
    error = response.json().get("error")
    if response.status_code >= 400 or error is not None:
        assert response.status_code in REFUSALS or error["code"] is not None, response.text
        return Seen(None, (response.status_code, error["code"] if error else None))
    doc = table(fake, kind).find(ident)
    return Seen(GONE if doc is None else doc.status)


def _body(kind: Kind, doc: Any, step: Step) -> dict[str, Any] | None:
    if step is Step.FINALIZE:
        return {"sendType": "VPDF", "sendDraft": False}
    if step is Step.EMAIL:
        return dict(MAIL)
    if step in (Step.PAY_PART, Step.PAY_REST):
        return _booking(kind, doc, step)
    return None


def _booking(kind: Kind, doc: Payable, step: Step) -> dict[str, Any]:
    rest = doc.sumGross - doc.paidAmount
    amount = Decimal("1.00") if step is Step.PAY_PART or rest <= 0 else rest
    signed = amount * expected_sign(doc)
    return {
        "amount": f"{signed:f}",
        "date": "2026-11-20T12:00:00+01:00" if kind == "voucher" else 1795129200,
        "type": "N" if step is Step.PAY_PART else "FULL_PAYMENT",
        "checkAccount": {"id": REGISTER, "objectName": "CheckAccount"},
    }

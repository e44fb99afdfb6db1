"""sevdesk_finalize_document with e_invoice: the outgoing XRechnung preflight gates it, the
draft is marked as e-invoice (propertyIsEInvoice through saveInvoice, the one place the API
takes it), then finalized; an invoice already marked is always checked."""

from __future__ import annotations

import json

import httpx
import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo
from tests.documents.draft_helpers import DRAFT_CREDIT_NOTE, DRAFT_INVOICE, app, approved
from tests.writes.tool_helpers import body, call, error_text, facts, said, write_app, writes

pytestmark = pytest.mark.anyio
FINALIZE = "sevdesk_finalize_document"
PREFLIGHT = "sevdesk_preflight_einvoice"
LEITWEG = "04011000-12345-03"


def ready(fake: FakeSevdesk) -> FakeSevdesk:
    """:returns: ``fake`` with the draft's customer given a Leitweg-ID (the demo draft has a
    payment method and an invoice address already)."""
    invoice = fake.store.invoices.get(DRAFT_INVOICE)
    assert invoice.contact is not None and invoice.paymentMethod is not None
    fake.store.contacts.get(invoice.contact.id).buyerReference = LEITWEG
    return fake


async def test_a_draft_breaking_xrechnung_is_refused_naming_the_rules() -> None:
    fake = build_demo()
    result = await call(
        app(fake), FINALIZE, kind="invoice", document_id=DRAFT_INVOICE, e_invoice=True
    )
    text = error_text(result)
    assert "cannot be finalized as an e-invoice" in text
    assert "BR-DE-15" in text and "Nothing was changed" in text
    assert writes(fake) == []
    assert fake.store.invoices.get(DRAFT_INVOICE).propertyIsEInvoice is False


async def test_a_ready_draft_is_marked_then_finalized_once() -> None:
    fake = ready(build_demo())
    checked = (await call(app(fake), PREFLIGHT, invoice_id=DRAFT_INVOICE))["structuredContent"]
    assert checked["ready"] is True and checked["e_invoice"] is False
    assert "e_invoice=true" in checked["e_invoice_flag"]
    message, result = await approved(
        app(fake), FINALIZE, kind="invoice", document_id=DRAFT_INVOICE, e_invoice=True
    )
    assert "as e-invoice" in message and "marked as e-invoice first" in message
    assert "XRechnung preflight: passed" in message
    assert result["structuredContent"]["status"] == "done", result
    assert writes(fake) == [
        "POST /Invoice/Factory/saveInvoice",
        f"PUT /Invoice/{DRAFT_INVOICE}/sendBy",
    ]
    sent = body(fake, "POST", "/Invoice/Factory/saveInvoice")
    assert sent["invoice"]["id"] == DRAFT_INVOICE
    assert sent["invoice"]["propertyIsEInvoice"] is True
    assert sent["invoicePosSave"] is None and sent["invoicePosDelete"] is None
    stored = fake.store.invoices.get(DRAFT_INVOICE)
    assert stored.propertyIsEInvoice is True and stored.invoiceNumber is not None
    assert stored.enshrined is not None
    assert len(fake.store.positions_of(stored)) > 0  # the positions are untouched


async def test_the_dry_run_preview_says_e_invoice() -> None:
    fake = ready(build_demo())
    dry = await call(
        app(fake), FINALIZE, kind="invoice", document_id=DRAFT_INVOICE, e_invoice=True, dryRun=True
    )
    preview = dry["structuredContent"]["preview"]
    action = said(preview)[0]
    assert action.startswith("Finalize") and "as e-invoice" in action
    shown = facts(preview)
    assert shown["E-invoice"].startswith("yes")
    assert "settings" in shown["Not checked"]
    assert writes(fake) == []


async def test_an_invoice_already_marked_is_checked_even_without_the_option() -> None:
    fake = build_demo()
    fake.store.invoices.get(DRAFT_INVOICE).propertyIsEInvoice = True  # marked in sevDesk
    result = await call(app(fake), FINALIZE, kind="invoice", document_id=DRAFT_INVOICE)
    assert "BR-DE-15" in error_text(result)
    assert writes(fake) == []
    ready(fake)
    message, done = await approved(app(fake), FINALIZE, kind="invoice", document_id=DRAFT_INVOICE)
    assert "already marked as e-invoice" in message
    assert done["structuredContent"]["status"] == "done"
    assert writes(fake) == [f"PUT /Invoice/{DRAFT_INVOICE}/sendBy"]  # no second save


class LosesPaymentMethod(httpx.AsyncBaseTransport):
    """The fake, except that the payment method is gone when the flag is saved (removed in
    sevDesk between approval and execution), so sevDesk answers code 830."""

    def __init__(self, fake: FakeSevdesk) -> None:
        self._fake, self._inner = fake, fake.transport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/saveInvoice"):
            sent = json.loads(request.content)
            sent["invoice"].pop("paymentMethod", None)
            self._fake.store.invoices.get(DRAFT_INVOICE).paymentMethod = None
            headers = {k: v for k, v in request.headers.items() if k != "content-length"}
            request = httpx.Request(request.method, request.url, headers=headers, json=sent)
        return await self._inner.handle_async_request(request)


async def test_sevdesk_refusing_the_flag_is_explained_and_nothing_finalized() -> None:
    fake = ready(build_demo())
    allow = {"SEVDESK_ALLOW": "write,commit"}
    server = write_app(fake, allow, transport=LosesPaymentMethod(fake))
    _, result = await approved(
        server, FINALIZE, kind="invoice", document_id=DRAFT_INVOICE, e_invoice=True
    )
    text = json.dumps(result)
    assert "code 830" in text and "payment method" in text, text
    assert writes(fake) == ["POST /Invoice/Factory/saveInvoice"]  # sendBy never sent
    stored = fake.store.invoices.get(DRAFT_INVOICE)
    assert stored.status == 100 and stored.propertyIsEInvoice is False


async def test_e_invoice_is_for_invoices_only() -> None:
    fake = build_demo()
    result = await call(
        app(fake), FINALIZE, kind="credit_note", document_id=DRAFT_CREDIT_NOTE, e_invoice=True
    )
    assert "invoices only" in error_text(result)
    assert writes(fake) == []


async def test_a_marking_save_that_changes_more_stops_before_finalizing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What sevDesk does with the fields the marking save leaves out is not confirmed (D-085):
    if it cleared one, the draft is read back and nothing is finalized."""
    from sevdesk_mcp.fake.routes import document_writes

    original = document_writes._check_e_invoice

    def clearing(invoice: object) -> None:
        original(invoice)  # type: ignore[arg-type]
        invoice.header = ""  # type: ignore[attr-defined]

    monkeypatch.setattr(document_writes, "_check_e_invoice", clearing)
    fake = ready(build_demo())
    _, result = await approved(
        app(fake), FINALIZE, kind="invoice", document_id=DRAFT_INVOICE, e_invoice=True
    )
    text = json.dumps(result)
    assert "marked as e-invoice, but sevDesk also changed header" in text
    assert writes(fake) == ["POST /Invoice/Factory/saveInvoice"]  # never finalized

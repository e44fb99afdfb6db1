"""Every write, commit and external tool through the real server in a rehearsal, wired as
``--demo --rehearse`` wires it, with a counting proxy in front of the "real" account (the demo
books): each tool succeeds (or refuses by its own checks, where the demo books cannot satisfy
it), the rehearsal logs its change, and the proxy sees plain reads only. A last test runs every
case in one rehearsal, one after another: a month-end of everything."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.cli import demo, rehearse
from sevdesk_mcp.config import Config, load_config
from sevdesk_mcp.fake import FakeSevdesk
from sevdesk_mcp.fake.demo_receipts import EINVOICE, RECEIPTS, write_demo_receipts
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.rehearsal.transport import Rehearsal
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.server import Reach, ServerFactory
from sevdesk_mcp.sevdesk.paths import minimum_tier
from sevdesk_mcp.tools.definitions import ALL_TOOLS, TOOLSETS
from tests.rehearsal.helpers import CountingProxy
from tests.wire import FORM, open_wire

pytestmark = pytest.mark.anyio

API_PREFIX = "/api/v1"  # the demo books' base path; paths.minimum_tier wants what follows it
DRAFT_INVOICE = 700041  # a draft without number
OPEN_INVOICE = 700037  # RE-1037, open, 763.98 EUR; transaction 900075 pays it
CREDIT_SOURCE = 700036  # RE-1036, open, no payments, no credit note
REMINDED = 700028  # RE-1028, overdue
PAID_INVOICE = 700032  # RE-1032, paid by transaction 900065
CANCELLED_LATER = 700039  # RE-1039, open, 318.56 EUR gross
DRAFT_CREDIT_NOTE = 720003  # GU-1003, a draft
ACCEPTED_ORDER = 740003  # AN-1003, the accepted offer to Hotel Lindenblick
CUSTOMER = 410003  # Café Kastanie GmbH
TABLE_PART = 610001  # HS-1001 Esstisch Eiche massiv
VOUCHER_DRAFT = 800031  # Beleg FB-4410, a draft (50)
MESSE_RECEIPT = 800032  # HMS-26-0090, a draft receipt
REVENUE = 800030  # Beleg RH-2026-04, open revenue, no payments, not enshrined
EXPENSE = 800026  # an open expense whose tax rule the draft's booking account allows
REGISTER = 5002  # the cash register
PAYING_TX = 900075  # +763.98, unbooked, "Rechnung RE-1037"
PRIVATE_TX = 900058  # unbooked, fit to mark private
BOOKED_TX = 900065  # booked against RE-1032
LINE = {"name": "Tischlerarbeiten Theke", "quantity": "3", "unit_price": "120.00", "tax_rate": 19}
MAIL = {
    "to_email": "buchhaltung@cafe-kastanie.example",
    "subject": "Ihre Rechnung",
    "text": "Guten Tag,\nanbei die Rechnung.\nViele Grüße",
}
RECEIPT = RECEIPTS[0]  # the Mercatura PDF
RECEIPT_DRAFT = {
    "date": RECEIPT.day,
    "supplier_name": RECEIPT.supplier,
    "receipt_number": RECEIPT.number,
    "tax_rule_id": 9,
    "positions": [{"account_number": "4930", "tax_rate": 19, "net": "75.62", "gross": "89.99"}],
}
WRITE_TIERS = frozenset({Tier.WRITE, Tier.COMMIT, Tier.EXTERNAL})


@dataclass(frozen=True)
class Case:
    """One call of a tool: its arguments, whether it must log a change in the rehearsal, and,
    where the demo books cannot satisfy it, the words of the tool's own refusal (and why)."""

    arguments: dict[str, Any]
    changes: bool = True
    refusal: str | None = None
    files: Reach = "local"
    ready: Callable[[FakeSevdesk], None] | None = field(default=None, compare=False)


def _receipt_tax_rule(fake: FakeSevdesk) -> None:
    """The demo receipt draft gets a tax rule its booking account allows (the "real" books'
    state, as the finalize-receipt tests of the demo books set it)."""
    draft = fake.store.vouchers.get(VOUCHER_DRAFT)
    draft.taxRule = fake.store.vouchers.get(EXPENSE).taxRule


def _not_enshrined(fake: FakeSevdesk) -> None:
    """RE-1037 finalized before enshrining existed: open, not yet enshrined."""
    fake.store.invoices.get(OPEN_INVOICE).enshrined = None


CASES: dict[str, Case] = {
    "sevdesk_create_contact": Case(
        {"kind": "organisation", "category": "customer", "name": "Probelauf Werkstatt GmbH"}
    ),
    "sevdesk_update_contact": Case({"contact_id": CUSTOMER, "phone": "+49 761 555 0100"}),
    "sevdesk_create_document_draft": Case(
        {"kind": "invoice", "contact_id": CUSTOMER, "positions": [LINE]}
    ),
    "sevdesk_update_document_draft": Case(
        {
            "kind": "invoice",
            "document_id": DRAFT_INVOICE,
            "contact_id": CUSTOMER,
            "positions": [LINE],
        }
    ),
    "sevdesk_delete_document_draft": Case(
        {"kind": "credit_note", "document_id": DRAFT_CREDIT_NOTE}
    ),
    "sevdesk_finalize_document": Case({"kind": "invoice", "document_id": DRAFT_INVOICE}),
    "sevdesk_enshrine_document": Case(
        {"kind": "invoice", "document_id": OPEN_INVOICE}, ready=_not_enshrined
    ),
    "sevdesk_send_document_email": Case({"kind": "invoice", "document_id": OPEN_INVOICE, **MAIL}),
    "sevdesk_mark_document_sent": Case(
        {"kind": "invoice", "document_id": CREDIT_SOURCE, "way": "post"}
    ),
    "sevdesk_book_payment": Case(
        {
            "kind": "invoice",
            "document_id": REMINDED,
            "amount": "18.56",
            "date": "2026-11-27",
            "check_account_id": REGISTER,
        }
    ),
    "sevdesk_cancel_invoice": Case({"invoice_id": CANCELLED_LATER}),
    "sevdesk_credit_note_from_invoice": Case({"invoice_id": CREDIT_SOURCE}),
    "sevdesk_reset_document": Case({"kind": "voucher", "document_id": REVENUE, "to": "draft"}),
    "sevdesk_create_payment_reminder": Case({"invoice_id": REMINDED}),
    "sevdesk_invoice_from_order": Case({"order_id": ACCEPTED_ORDER}),
    "sevdesk_upload_receipt": Case({"path": RECEIPT.filename}),
    "sevdesk_create_receipt_draft": Case(RECEIPT_DRAFT),
    "sevdesk_update_receipt_draft": Case({**RECEIPT_DRAFT, "voucher_id": MESSE_RECEIPT}),
    "sevdesk_delete_receipt_draft": Case({"voucher_id": MESSE_RECEIPT}),
    "sevdesk_finalize_receipt": Case({"voucher_id": VOUCHER_DRAFT}, ready=_receipt_tax_rule),
    "sevdesk_file_einvoice": Case({"path": EINVOICE.filename}),
    "sevdesk_create_part": Case({"name": "Probelauf Regal", "tax_rate": 19, "net_price": "149.00"}),
    "sevdesk_update_part": Case({"part_id": TABLE_PART, "net_price": "2590.00"}),
    "sevdesk_book_match": Case(
        {
            "transaction_id": PAYING_TX,
            "bookings": [{"kind": "invoice", "document_id": OPEN_INVOICE}],
        }
    ),
    "sevdesk_mark_transaction_private": Case({"transaction_id": PRIVATE_TX}),
    "sevdesk_undo_booking": Case({"transaction_id": BOOKED_TX}),
    "sevdesk_export_datev_enshrined": Case({"period": "2026-10"}),
    # It stages a file on the HTTP server's file transfer for a signed-in caller and sends
    # nothing to sevDesk; in-process there is no HTTP caller, so its own check refuses.
    "sevdesk_request_upload": Case(
        {}, changes=False, refusal="File transfer is not available here", files="transfer"
    ),
    "sevdesk_tag": Case(
        {"action": "add", "tag": "Projekt Theke", "object": "order", "object_id": ACCEPTED_ORDER}
    ),
}


class RecordingProxy(CountingProxy):
    """The counting proxy, also keeping each request's query and JSON body, so the test can
    ask ``paths.minimum_tier`` whether a request that reached the books was a plain read."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        super().__init__(inner)
        self.requests: list[tuple[str, str, list[tuple[str, str]], Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix(API_PREFIX)
        body = json.loads(request.content) if request.content else None
        self.requests.append((request.method, path, request.url.params.multi_items(), body))
        return await super().handle_async_request(request)

    def not_plain_reads(self) -> list[tuple[str, str]]:
        """:returns: each request that was not a GET, a GET with a body or a repeated query
        key, or a GET with a side effect (the books' own record is checked too: :func:`still`)."""
        return [
            (method, path)
            for method, path, items, body in self.requests
            if method != "GET"
            or body is not None
            or len({k for k, _ in items}) != len(items)
            or minimum_tier(method, path, dict(items), body) is not None
        ]


def still(fake: FakeSevdesk, revision: int) -> None:
    """Assert the "real" books applied no request and are at ``revision`` still."""
    assert not any(r.applied for r in fake.requests), [
        (r.method, r.path) for r in fake.requests if r.applied
    ]
    assert fake.store.revision == revision


@dataclass
class Rehearsed:
    """The account of ``--demo --rehearse`` and what a test looks at behind it."""

    account: AccountContext
    proxy: RecordingProxy
    books: demo.LazyDemoBooks
    apps: dict[Reach, McpApp] = field(default_factory=dict)

    def app(self, files: Reach = "local") -> McpApp:
        """:returns: the server on the account, for a deployment with file reach ``files``
        (one account, so one rehearsal, whichever server calls)."""
        if files not in self.apps:
            factory = ServerFactory(self.account.config, files=files)
            self.apps[files] = factory.build(self.account)
        return self.apps[files]

    def rehearsal(self) -> Rehearsal:
        assert isinstance(self.account.rehearsal, Rehearsal)
        return self.account.rehearsal


def environment(tmp_path: Path) -> dict[str, str]:
    """:returns: every tier and toolset on, approvals off for the rehearsal, and a file
    folder holding the demo receipts (a PDF and a ZUGFeRD e-invoice) and an output folder."""
    files = write_demo_receipts(tmp_path / "Belege")
    out = tmp_path / "out"
    out.mkdir()
    return {
        "SEVDESK_ALLOW": "write,commit,external",
        "SEVDESK_TOOLSETS": ",".join(sorted(TOOLSETS)),
        "SEVDESK_REHEARSE": "on",
        "SEVDESK_REHEARSE_CONFIRM": "off",
        "SEVDESK_FILE_DIRS": str(files),
        "SEVDESK_OUTPUT_DIR": str(out),
    }


def rehearsing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Rehearsed:
    """:returns: the account of ``--demo --rehearse`` with the counting proxy between the
    rehearsal and the demo books (the "real" account)."""
    books = demo.LazyDemoBooks()
    monkeypatch.setattr(demo, "demo_books", lambda: books)
    proxies: list[RecordingProxy] = []
    original = rehearse.rehearsal_of

    def proxied(
        real: httpx.AsyncBaseTransport,
        config: Config,
        today: Callable[[], dt.date] | None = None,
        **bound: Any,
    ) -> Rehearsal:
        proxies.append(RecordingProxy(real))
        return original(proxies[-1], config, today, **bound)

    monkeypatch.setattr(rehearse, "rehearsal_of", proxied)
    account = demo.demo_account(load_config(environment(tmp_path)))
    (proxy,) = proxies
    return Rehearsed(account, proxy, books)


async def run(rehearsed: Rehearsed, name: str) -> tuple[dict[str, Any], int]:
    """Call tool ``name`` with its case's arguments, approvals asked for if the tool would.

    :returns: the result and by how many changes the rehearsal's log grew.
    """
    case = CASES[name]
    before = len(rehearsed.rehearsal().changes())
    params = {"name": name, "arguments": case.arguments}
    async with open_wire(rehearsed.app(case.files)) as wire:
        answer = await wire.modern("tools/call", params, caps=FORM)
    assert "result" in answer, (name, answer)
    result: dict[str, Any] = answer["result"]
    return result, len(rehearsed.rehearsal().changes()) - before


def check(name: str, result: dict[str, Any], grew: int, proxy: RecordingProxy) -> None:
    """Assert what each case must show: done (or the tool's own refusal),
    a logged change where it changes something, and no request past the rehearsal that was
    not a plain read."""
    case = CASES[name]
    text = result["content"][0]["text"]
    assert "inputRequests" not in result, (name, result)  # approvals are off
    if case.refusal is not None:
        assert result.get("isError") is True and case.refusal in text, (name, text)
    else:
        assert not result.get("isError"), (name, text)
        assert result["structuredContent"]["status"] == "done", (name, text)
        assert (grew > 0) == case.changes, (name, grew, text)
    assert proxy.not_plain_reads() == [], name
    assert set(proxy.methods) <= {"GET"}, (name, proxy.methods)
    if case.refusal is None:  # the rehearsal read the real books: the proxy saw them
        assert proxy.methods.get("GET", 0) > 0, name


def test_every_write_commit_and_external_tool_has_a_case() -> None:
    tools = {t.name for t in ALL_TOOLS if t.tier in WRITE_TIERS}
    assert tools == set(CASES), (tools - set(CASES), set(CASES) - tools)


@pytest.mark.parametrize("name", sorted(CASES))
async def test_each_tool_is_rehearsed_with_plain_reads_upstream(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    rehearsed = rehearsing(monkeypatch, tmp_path)
    case = CASES[name]
    if case.ready is not None:
        case.ready(rehearsed.books.fake())
    revision = rehearsed.books.fake().store.revision
    result, grew = await run(rehearsed, name)
    still(rehearsed.books.fake(), revision)
    assert rehearsed.proxy.not_plain_reads() == []
    assert rehearsed.rehearsal().upstream_refused() == 0
    assert [r.method for r in rehearsed.books.fake().requests if r.method != "GET"] == []
    check(name, result, grew, rehearsed.proxy)


async def test_a_paid_invoice_is_reset_to_open_in_a_rehearsal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rehearsed = rehearsing(monkeypatch, tmp_path)
    revision = rehearsed.books.fake().store.revision
    arguments = {"kind": "invoice", "document_id": PAID_INVOICE, "to": "open"}
    params = {"name": "sevdesk_reset_document", "arguments": arguments}
    async with open_wire(rehearsed.app()) as wire:
        result = (await wire.modern("tools/call", params, caps=FORM))["result"]
    assert rehearsed.proxy.not_plain_reads() == []
    still(rehearsed.books.fake(), revision)
    assert not result.get("isError"), result["content"][0]["text"]
    changes = rehearsed.rehearsal().changes()
    assert [(c.object_name, c.object_id) for c in changes] == [("Invoice", PAID_INVOICE)]
    engine = rehearsed.rehearsal().engine
    assert engine is not None
    invoice = engine.store.invoices.find(PAID_INVOICE)
    assert invoice is not None and invoice.status == 200  # open again, in the overlay only
    assert BOOKED_TX in {t.id for t in engine.store.transactions}  # seeded before the reset


async def test_the_overlays_export_job_is_polled_in_the_overlay_and_logged_as_a_job(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rehearsed = rehearsing(monkeypatch, tmp_path)
    await run(rehearsed, "sevdesk_export_datev_enshrined")
    polled = [
        p for m, p, _, _ in rehearsed.proxy.requests if p.startswith(("/Progress", "/Export"))
    ]
    assert polled == []  # the job exists in the overlay only
    (change,) = rehearsed.rehearsal().changes()
    assert (change.action, change.object_name) == ("enshrined", "ExportJob")


async def test_a_dry_run_previews_without_a_change(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rehearsed = rehearsing(monkeypatch, tmp_path)
    arguments = {**CASES["sevdesk_finalize_document"].arguments, "dryRun": True}
    params = {"name": "sevdesk_finalize_document", "arguments": arguments}
    async with open_wire(rehearsed.app()) as wire:
        result = (await wire.modern("tools/call", params, caps=FORM))["result"]
    assert result["structuredContent"]["status"] == "dry_run", result
    assert len(rehearsed.rehearsal().changes()) == 0
    assert rehearsed.proxy.not_plain_reads() == [] and rehearsed.proxy.methods["GET"] > 0


# One rehearsal, every tool: drafts and receipts first, then what binds, deletions last (so
# each case still finds the record it needs).
MONTH_END = (
    "sevdesk_create_contact",
    "sevdesk_update_contact",
    "sevdesk_create_part",
    "sevdesk_update_part",
    "sevdesk_tag",
    "sevdesk_create_document_draft",
    "sevdesk_update_document_draft",
    "sevdesk_finalize_document",
    "sevdesk_invoice_from_order",
    "sevdesk_upload_receipt",
    "sevdesk_create_receipt_draft",
    "sevdesk_update_receipt_draft",
    "sevdesk_finalize_receipt",
    "sevdesk_file_einvoice",
    "sevdesk_request_upload",
    "sevdesk_create_payment_reminder",
    "sevdesk_book_payment",
    "sevdesk_mark_document_sent",
    "sevdesk_credit_note_from_invoice",
    "sevdesk_enshrine_document",
    "sevdesk_send_document_email",
    "sevdesk_book_match",
    "sevdesk_mark_transaction_private",
    "sevdesk_undo_booking",
    "sevdesk_reset_document",
    "sevdesk_cancel_invoice",
    "sevdesk_export_datev_enshrined",
    "sevdesk_delete_receipt_draft",
    "sevdesk_delete_document_draft",
)


def test_the_month_end_names_every_case_once() -> None:
    assert sorted(MONTH_END) == sorted(CASES)


async def test_a_month_end_of_everything_in_one_rehearsal_reads_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rehearsed = rehearsing(monkeypatch, tmp_path)
    fake = rehearsed.books.fake()
    for name in MONTH_END:
        if (ready := CASES[name].ready) is not None:
            ready(fake)
    revision = fake.store.revision
    done = []
    for name in MONTH_END:
        result, grew = await run(rehearsed, name)
        check(name, result, grew, rehearsed.proxy)
        done.append(name)
    assert done == list(MONTH_END)
    assert rehearsed.proxy.methods["GET"] > 0 and set(rehearsed.proxy.methods) == {"GET"}
    assert rehearsed.proxy.not_plain_reads() == []
    assert rehearsed.rehearsal().upstream_refused() == 0
    assert [r.method for r in fake.requests if r.method != "GET"] == []
    still(fake, revision)


async def test_the_proxy_flags_a_write_and_a_read_with_a_side_effect() -> None:
    books = demo.LazyDemoBooks()
    proxy = RecordingProxy(books)
    base = f"{demo.DEMO_API_URL}/Invoice/{DRAFT_INVOICE}"
    for method, url in (
        ("GET", base),
        ("GET", f"{base}/getPdf"),  # without preventSendBy it marks the invoice sent
        ("PUT", f"{base}/sendBy"),
    ):
        await proxy.handle_async_request(httpx.Request(method, url, json=None))
    assert proxy.not_plain_reads() == [
        ("GET", f"/Invoice/{DRAFT_INVOICE}/getPdf"),
        ("PUT", f"/Invoice/{DRAFT_INVOICE}/sendBy"),
    ]


async def test_the_generic_read_in_a_rehearsal_reads_only_the_endpoint_table(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rehearsed = rehearsing(monkeypatch, tmp_path)
    params = {"name": "sevdesk_api_get", "arguments": {"path": "/Category"}}
    async with open_wire(rehearsed.app()) as wire:
        result = (await wire.modern("tools/call", params, caps=FORM))["result"]
    assert result.get("isError") is True
    banner, said = result["content"][0]["text"].split("\n", 1)
    assert "REHEARSAL" in banner and "\n" not in said.strip()
    assert "GET /Category" in said and "reads only the endpoints the server knows" in said
    assert "/Category" not in {p for _, p, _, _ in rehearsed.proxy.requests}

"""The body of a document draft for sevDesk's Factory endpoints (``saveInvoice``,
``saveCreditNote``, ``saveOrder``, ``docs/sevdesk-api.md`` §2.4-2.6, §5.2) and the preview facts
that describe it, after the checks of :mod:`sevdesk_mcp.domain.documents.draft_checks`.

sevDesk does not copy the contact's address onto a document (Q24), so the billing address is
sent; dates go out as ``dd.mm.yyyy`` and delivery dates as Unix seconds at Berlin midnight
(Q18); every relation carries its ``objectName`` (Q38).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.documents import draft_checks as checks
from sevdesk_mcp.domain.documents import draft_extras as extra
from sevdesk_mcp.domain.documents.draft_lines import Line, position_body, sums_facts
from sevdesk_mcp.domain.documents.kinds import KINDS, KindName
from sevdesk_mcp.domain.documents.writes import KIND_SAID, named, read_document
from sevdesk_mcp.domain.lifecycle_table import INITIAL, Step, refusal
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import ref, whole
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.preview import Day, Fact, Said, fact, quoted, say
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import api_path
from sevdesk_mcp.sevdesk.wire_documents import Document

CreditNoteCategory = Literal["underachievement", "provision"]
OrderType = Literal["AN", "AB", "LI"]
DEFAULT_DAYS: Final = 14
KEY: Final = {"invoice": "invoice", "credit_note": "creditNote", "order": "order"}
NO_ADDRESS: Final = Said(
    "(the contact has no address on file)", "(beim Kontakt ist keine Adresse hinterlegt)"
)
_DATE: Final = {"invoice": "invoiceDate", "credit_note": "creditNoteDate", "order": "orderDate"}


class Draft(msgspec.Struct, frozen=True):
    """A document draft to create, or the full new state of one to change."""

    kind: KindName
    contact_id: int
    day: dt.date
    lines: tuple[Line, ...]
    tax_rule_id: int = 1
    header: str | None = None
    head_text: str | None = None
    foot_text: str | None = None
    payment_days: int | None = None
    delivery_day: dt.date | None = None
    source_invoice_id: int | None = None
    category: CreditNoteCategory = "underachievement"
    order_type: OrderType = "AN"
    allow_duplicate: bool = False
    extras: extra.Extras = extra.Extras()


async def document_body(
    client: SevdeskPort, draft: Draft, current: Document | None
) -> tuple[JsonObject, list[Fact], extra.ContactChange | None]:
    """:returns: the Factory body of ``draft``, its preview facts, and a buyer reference to set
        on the contact before the save (``None`` if none).

    :raises PreconditionError: naming what does not fit (tax rule, rates, country, contact,
        payment method) and what would.
    :raises ToolInputError: for a field the document or the account does not take.
    :raises ToolError: for a credit note without the invoice it corrects.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    provision = draft.kind == "credit_note" and draft.category == "provision"
    rates = [line.tax_rate for line in draft.lines]
    if draft.extras.tax_type is None:  # before any request
        checks.check_rule_rates(draft.tax_rule_id, rates, provision=provision)
    to = await checks.recipient(client, draft.contact_id)
    legacy = extra.tax_type_fields(
        await client.system_version(), draft.extras, draft.tax_rule_id, rates
    )
    oss = None if legacy else await checks.one_stop_shop(client, draft.tax_rule_id, rates, to)
    rule = await _rule_name(client, draft, rates, provision=provision, legacy=legacy)
    user = await checks.signing_user(client)
    source = await _source_invoice(client, draft, rates)
    top = _top(draft, to, user, rule, current)
    more, extra_facts, change = await extra.body_fields(client, draft.extras, to)
    top.update(more)
    facts = [
        fact("Document", "Dokument", KIND_SAID[draft.kind]),
        fact(
            "Contact",
            "Kontakt",
            say("{0} (id {1})", "{0} (ID {1})", quoted(to.name), to.contact_id),
        ),
        fact("Billing address", "Rechnungsadresse", to.lines() if to.street else NO_ADDRESS),
        fact("Date", "Datum", Day(draft.day)),
        _tax_fact(draft, rule, oss, legacy),
    ]
    if legacy:
        del top["taxRule"]
        top.update(legacy)
    if source is not None:
        top["refSrcInvoice"] = ref(source.id, "Invoice")
        facts.append(fact("Corrects", "Korrigiert", named("invoice", source)))
    if draft.kind == "invoice":
        days = _days(draft, to)
        top["timeToPay"] = days
        facts.append(fact("Payment term", "Zahlungsziel", say("{0} days", "{0} Tage", days)))
    facts += extra_facts
    facts += _text_facts(draft)
    facts += sums_facts(draft.lines, draft.extras.currency)
    model = KINDS[draft.kind].model
    body: JsonObject = {
        KEY[draft.kind]: top,
        f"{KEY[draft.kind]}PosSave": [position_body(line, f"{model}Pos") for line in draft.lines],
        f"{KEY[draft.kind]}PosDelete": None,
    }
    return body, facts, change


async def _rule_name(
    client: SevdeskPort,
    draft: Draft,
    rates: list[Decimal],
    *,
    provision: bool,
    legacy: JsonObject | None,
) -> str:
    if legacy is not None:
        text = legacy["taxText"]
        assert isinstance(text, str)  # built by tax_type_fields
        return text
    return await checks.tax_rule_name(client, draft.tax_rule_id, rates, provision=provision)


def _tax_fact(draft: Draft, rule: str, oss: Said | None, legacy: JsonObject | None) -> Fact:
    if legacy is not None:
        return fact(
            "Tax type", "Steuerart", say("{0} {1}", "{0} {1}", str(legacy["taxType"]), quoted(rule))
        )
    shown = say("{0} {1}", "{0} {1}", draft.tax_rule_id, quoted(rule))
    if oss is not None:
        shown = say("{0} {1} ({2})", "{0} {1} ({2})", draft.tax_rule_id, quoted(rule), oss)
    return fact("Tax rule", "Steuerregel", shown)


def _top(
    draft: Draft, to: checks.Recipient, user: int, rule: str, current: Document | None
) -> JsonObject:
    model = KINDS[draft.kind].model
    top: JsonObject = {
        "objectName": model,
        "mapAll": True,
        "contact": ref(draft.contact_id, "Contact"),
        "contactPerson": ref(user, "SevUser"),
        _DATE[draft.kind]: dates.dotted(draft.day),
        "status": INITIAL[draft.kind],
        "currency": "EUR",
        "taxRule": ref(draft.tax_rule_id, "TaxRule"),
        "taxRate": 0,  # "not used anymore": each position carries its rate (§2.4)
        "taxText": rule,
        "showNet": True,
        "smallSettlement": draft.tax_rule_id == checks.SMALL_BUSINESS_RULE,
        "header": draft.header or "",
        "headText": draft.head_text or "",
        "footText": draft.foot_text or "",
        "addressName": to.name,
        "addressStreet": to.street or "",
        "addressZip": to.zip or "",
        "addressCity": to.city or "",
    }
    if to.country_id is not None:
        top["addressCountry"] = ref(to.country_id, "StaticCountry")
    if current is not None:
        top["id"] = current.id
    top.update(_kind_fields(draft, current))
    return top


def _kind_fields(draft: Draft, current: Document | None) -> JsonObject:
    delivery = draft.delivery_day or draft.day
    if draft.kind == "invoice":
        return {"invoiceType": "RE", "discount": 0, "deliveryDate": dates.unix_start(delivery)}
    if draft.kind == "order":
        return {"orderType": draft.order_type, "version": 0}
    fields: JsonObject = {
        "creditNoteType": "CN",
        "bookingCategory": draft.category.upper(),
        "deliveryDate": dates.unix_start(delivery),
    }
    if current is not None and current.creditNoteNumber:
        fields["creditNoteNumber"] = current.creditNoteNumber
    return fields


async def _source_invoice(
    client: SevdeskPort, draft: Draft, rates: list[Decimal]
) -> Document | None:
    if draft.kind != "credit_note" or draft.category != "underachievement":
        return None
    if draft.source_invoice_id is None:
        raise ToolError(
            "A credit note for a reduced or returned delivery (underachievement) needs "
            "source_invoice_id: the invoice it corrects. For a commission credit note use "
            "credit_note_category=provision."
        )
    invoice = await read_document(client, "invoice", draft.source_invoice_id)
    if refusal("invoice", invoice.status, Step.CREDIT_NOTE, f"Invoice {invoice.id}") is not None:
        raise ToolError(
            f"Invoice {invoice.id} is a draft; a credit note can only correct a finalized "
            "invoice. Change or delete the draft instead."
        )
    used = await _position_rates(client, invoice.id)
    other = sorted({r for r in rates if r not in used})
    if used and other:
        raise ToolError(
            f"Invoice {invoice.number() or invoice.id} has positions at "
            f"{', '.join(f'{r.normalize():f} %' for r in sorted(used))} only; every position "
            "of its credit note must use one of those rates (sevDesk code 456)."
        )
    return invoice


def _days(draft: Draft, to: checks.Recipient) -> int:
    if draft.payment_days is not None:
        return draft.payment_days
    return to.default_days if to.default_days is not None else DEFAULT_DAYS


def _text_facts(draft: Draft) -> list[Fact]:
    facts = []
    if draft.delivery_day is not None and draft.kind != "order":
        facts.append(fact("Delivery date", "Lieferdatum", Day(draft.delivery_day)))
    for en, de, value in (
        ("Header", "Betreff", draft.header),
        ("Head text", "Kopftext", draft.head_text),
        ("Foot text", "Fußtext", draft.foot_text),
    ):
        if value:
            facts.append(fact(en, de, quoted(value) if en == "Header" else whole(value)))
    return facts


async def _position_rates(client: SevdeskPort, invoice_id: int) -> set[Decimal]:
    path = api_path("Invoice", invoice_id, "getPositions")
    page = await client.get_all(path, max_items=1000)
    return {p.taxRate for p in wire.parse_all(page.items, _Rate) if p.taxRate is not None}


class _Rate(msgspec.Struct, frozen=True):
    id: int
    taxRate: Decimal | None = None

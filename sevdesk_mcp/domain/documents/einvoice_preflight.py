"""The outgoing preflight: a sevDesk draft invoice checked against the rules its XRechnung /
ZUGFeRD XML would be validated with, before it is finalized as an e-invoice.

The invoice is modelled as the XML sevDesk would write (CII, XRechnung 3.0): the buyer from the
contact (name, invoice address, VAT id, buyer reference = Leitweg-ID), one line per position,
the VAT breakdown per category and rate, the totals sevDesk computed. Then the EN 16931 and
BR-DE rules run. The seller's own data (name, address, contact, VAT id, IBAN) lives in
sevDesk's settings, which the API does not show: those rules are listed as not checked here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from decimal import Decimal
from typing import Final, NamedTuple

import msgspec

from sevdesk_mcp.domain.einvoice.check import check
from sevdesk_mcp.domain.einvoice.findings import Finding
from sevdesk_mcp.domain.einvoice.model import (
    Address,
    Contact,
    Invoice,
    Line,
    Party,
    PaymentMeans,
    Totals,
    VatBreakdown,
)
from sevdesk_mcp.domain.einvoice.profiles import XRECHNUNG_3
from sevdesk_mcp.domain.einvoice.values import HUNDRED, ZERO, r2, total
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import QueryValue, api_path
from sevdesk_mcp.sevdesk.together import both
from sevdesk_mcp.sevdesk.wire_documents import Document, Position

MAX_ROWS: Final = 1000
CATEGORY_BY_RULE: Final = {2: "G", 3: "K", 4: "E", 5: "AE", 11: "E", 17: "O", 21: "AE"}
SELLER_RULES: Final = frozenset(
    {"BR-02", "BR-06", "BR-08", "BR-09", "BR-CO-26", "BR-61", "BR-DE-2", "BR-DE-3", "BR-DE-4"}
    | {"BR-DE-5", "BR-DE-6", "BR-DE-7", "BR-DE-16", "BR-DE-23-a", "BR-DE-21", "BR-DE-22"}
)
NOT_CHECKED: Final = (
    "Your own data as seller (name, address, contact person with phone and e-mail, VAT id or "
    "tax number, IBAN) comes from sevDesk's settings, which the API does not show: check them "
    "there (BR-06, BR-08, BR-CO-26, BR-DE-2 to BR-DE-7, BR-DE-16, BR-DE-23-a). The invoice "
    "number is assigned on finalizing."
)
_PLACEHOLDER: Final = Party(
    name="seller",
    vat_id="DE000000000",
    address=Address(city="-", post_code="-", country="DE"),
    contact=Contact(name="-", phone="000", email="seller@example.invalid"),
)


class Preflight(msgspec.Struct, frozen=True, kw_only=True):
    """The preflight's result: ``ready`` when no rule that could be checked failed;
    ``e_invoice`` whether sevDesk already marks the draft as e-invoice."""

    invoice_id: int
    ready: bool
    errors: int
    warnings: int
    findings: list[Finding]
    not_checked: str
    e_invoice: bool
    e_invoice_flag: str


class Checked(NamedTuple):
    """A preflight with the invoice as sevDesk sent it."""

    result: Preflight
    raw: dict[str, JsonValue]


async def preflight(client: SevdeskPort, invoice_id: int) -> Preflight:
    """:returns: the rule results of draft invoice ``invoice_id`` as an XRechnung.

    :raises NotFoundError: if there is no such invoice.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    return (await checked(client, invoice_id)).result


async def checked(client: SevdeskPort, invoice_id: int) -> Checked:
    """:returns: the rule results of draft invoice ``invoice_id`` and the invoice read.

    :raises NotFoundError: if there is no such invoice.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    raw, positions = await both(
        lambda: read_raw(client, "Invoice", invoice_id),
        lambda: _positions(client, invoice_id),
    )
    doc = wire.parse(raw, Document)
    buyer = await _buyer(client, doc)
    invoice = model(doc, positions, buyer, has_payment_method=bool(raw.get("paymentMethod")))
    result = check(invoice, xrechnung=True)
    findings = [f for f in result.findings if f.rule not in SELLER_RULES]
    errors = sum(1 for f in findings if f.severity == "error")
    flagged = is_flagged(raw)
    return Checked(
        Preflight(
            invoice_id=invoice_id,
            ready=errors == 0,
            errors=errors,
            warnings=len(findings) - errors,
            findings=findings,
            not_checked=NOT_CHECKED,
            e_invoice=flagged,
            e_invoice_flag=_flag_words(flagged, has_payment_method=bool(raw.get("paymentMethod"))),
        ),
        raw,
    )


def is_flagged(raw: Mapping[str, JsonValue]) -> bool:
    """:returns: whether sevDesk marks the invoice as e-invoice (``propertyIsEInvoice``, sent
    as ``"1"``/``"0"``, Q4)."""
    return str(raw.get("propertyIsEInvoice") or "").lower() in {"1", "true"}


def _flag_words(flagged: bool, *, has_payment_method: bool) -> str:
    if flagged:
        return (
            "sevDesk already marks this draft as e-invoice (propertyIsEInvoice): finalizing "
            "runs this check again and refuses while a rule fails."
        )
    if not has_payment_method:
        return (
            "sevDesk marks an invoice as e-invoice (propertyIsEInvoice) only with a payment "
            "method set: set it on the invoice in sevDesk, then finalize with e_invoice=true."
        )
    return (
        "Finalize with e_invoice=true: it runs this check again, marks the invoice as "
        "e-invoice (propertyIsEInvoice) and then finalizes it."
    )


def model(
    doc: Document, positions: list[Position], buyer: Party, *, has_payment_method: bool
) -> Invoice:
    """:returns: the invoice as its XRechnung XML would hold it."""
    rule = doc.taxRule.id if doc.taxRule else 1
    lines = [_line(p, rule) for p in positions if not p.optional]
    breakdown = _breakdown(lines)
    means = [PaymentMeans(code="58", ibans=["(from settings)"])] if has_payment_method else []
    issued = doc.date()
    return Invoice(
        syntax="cii",
        profile="XRECHNUNG",
        specification=XRECHNUNG_3,
        number=doc.number() or "(assigned on finalizing)",
        issue_date=issued.date().isoformat() if issued else None,
        type_code="380",
        currency=doc.currency or "EUR",
        buyer_reference=buyer.identifiers[0] if buyer.identifiers else None,
        seller=_PLACEHOLDER,
        buyer=msgspec.structs.replace(buyer, identifiers=[]),
        lines=lines,
        vat_breakdown=breakdown,
        totals=_totals(doc, lines),
        payment_means=means,
    )


def _line(position: Position, rule: int) -> Line:
    rate = position.taxRate if position.taxRate is not None else ZERO
    net = position.sumNet
    if net is None and position.price is not None:
        net = r2(position.price * position.amount())
    category = CATEGORY_BY_RULE.get(rule, "S" if rate > ZERO else "Z")
    return Line(
        id=str(position.positionNumber or position.id),
        name=position.name or None,
        quantity=position.amount(),
        unit="C62",
        net=net,
        price=position.price,
        category=category,
        rate=rate,
    )


def _breakdown(lines: list[Line]) -> list[VatBreakdown]:
    groups: dict[tuple[str, Decimal], list[Decimal | None]] = defaultdict(list)
    for line in lines:
        groups[(line.category or "S", line.rate or ZERO)].append(line.net)
    out = []
    for (category, rate), nets in sorted(groups.items()):
        taxable = r2(total(nets))
        reason = "exempt" if category in {"E", "AE", "K", "G", "O"} else None
        out.append(
            VatBreakdown(
                taxable=taxable,
                tax=r2(taxable * rate / HUNDRED),
                category=category,
                rate=None if category == "O" else rate,
                exemption_reason=reason,
            )
        )
    return out


def _totals(doc: Document, lines: list[Line]) -> Totals:
    line_net = r2(total([line.net for line in lines]))
    return Totals(
        line_net=line_net,
        net=doc.sumNet if doc.sumNet is not None else line_net,
        vat=doc.sumTax,
        gross=doc.sumGross,
        due=doc.sumGross,
        tax_amounts=[],
    )


async def _positions(client: SevdeskPort, invoice_id: int) -> list[Position]:
    page = await client.get_all(api_path("Invoice", invoice_id, "getPositions"), max_items=MAX_ROWS)
    return sorted(wire.parse_all(page.items, Position), key=lambda p: (p.positionNumber or 0, p.id))


async def _buyer(client: SevdeskPort, doc: Document) -> Party:
    if doc.contact is None:
        return Party()
    contact_id = doc.contact.id
    query: dict[str, QueryValue] = {"contact[id]": contact_id, "contact[objectName]": "Contact"}
    raw, page = await both(
        lambda: read_raw(client, "Contact", contact_id),
        lambda: client.get_all("/ContactAddress", query, max_items=MAX_ROWS),
    )
    contact = wire.parse(raw, wire.Contact)
    addresses = [
        a
        for a in wire.parse_all(page.items, wire.ContactAddress)
        if a.contact is not None and a.contact.id == contact_id
    ]
    address = min(addresses, key=lambda a: a.id) if addresses else None
    reference = contact.buyerReference if contact.buyerReference not in {None, "", "-"} else None
    name = contact.name or " ".join(filter(None, [contact.surename, contact.familyname])) or None
    return Party(
        name=name,
        identifiers=[reference] if reference else [],
        vat_id=contact.vatNumber or None,
        address=None
        if address is None
        else Address(
            street=address.street,
            city=address.city,
            post_code=address.zip,
            country="DE" if address.country is None or address.country.id == 1 else "XX",
        ),
    )

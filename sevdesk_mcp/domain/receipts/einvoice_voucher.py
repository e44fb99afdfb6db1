"""A receipt (voucher) suggested from an e-invoice: the supplier matched to a contact (VAT id,
IBAN or name) or proposed as new, positions per VAT breakdown with booking accounts from the one
suggestion engine (:mod:`.einvoice_lines`), the 2.0 tax rule, and what blocks filing it as a
draft."""

from __future__ import annotations

from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.einvoice.model import Invoice
from sevdesk_mcp.domain.einvoice.taxcase import TaxCase, tax_case
from sevdesk_mcp.domain.einvoice.values import ZERO
from sevdesk_mcp.domain.money import cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.einvoice_lines import SuggestedPosition, positions_of
from sevdesk_mcp.domain.receipts.suggest import Company
from sevdesk_mcp.domain.receipts.suppliers import Supplier, SupplierQuery, find_supplier
from sevdesk_mcp.safety.fence import fence

RATES: Final = frozenset({Decimal(0), Decimal(7), Decimal(19)})


class VoucherSuggestion(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a receipt draft of this e-invoice would hold; ``problems`` say what blocks it."""

    kind: Literal["expense", "revenue"]
    supplier: str
    supplier_id: int | None = None
    receipt_number: str | None = None
    date: str | None = None
    delivery_date: str | None = None
    payment_deadline: str | None = None
    currency: str | None = None
    tax_rule_id: int
    tax_case: str
    exemption: str | None = None
    positions: list[SuggestedPosition]
    gross: Decimal | None = None
    due: Decimal | None = None
    problems: list[str] = []
    note: str


async def suggest_voucher(
    client: SevdeskPort, invoice: Invoice, company: Company | None = None
) -> VoucherSuggestion:
    """:returns: the suggested receipt (reads contacts, the receipt guidance and the company's
    history): positions per VAT breakdown, split by account where its lines differ in nature.

    :raises PreconditionError: if several contacts match the seller.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    supplier = await find_supplier(client, query_of(invoice))
    kind: Literal["expense", "revenue"] = "revenue" if invoice.type_code == "381" else "expense"
    cases = tax_cases(invoice)
    case = suggested_case(invoice)
    facts = company or Company()
    positions = [
        p
        for vat in invoice.vat_breakdown
        for p in await positions_of(client, invoice, vat, kind, facts)
    ]
    problems = _problems(invoice, cases, positions)
    return VoucherSuggestion(
        kind=kind,
        supplier=supplier.shown(),
        supplier_id=supplier.contact_id,
        receipt_number=fence(invoice.number),
        date=invoice.issue_date,
        delivery_date=invoice.delivery_date,
        payment_deadline=invoice.due_date,
        currency=invoice.currency,
        tax_rule_id=case.rule_id,
        tax_case=case.case,
        exemption=fence(_exemption(invoice)),
        positions=positions,
        gross=invoice.totals.gross,
        due=invoice.totals.due,
        problems=problems,
        note=_note(kind, invoice, supplier),
    )


def tax_cases(invoice: Invoice) -> set[TaxCase]:
    """:returns: the tax cases of the invoice's VAT breakdown."""
    country = invoice.seller.address.country if invoice.seller.address else None
    return {tax_case(v.category or "", country) for v in invoice.vat_breakdown}


def suggested_case(invoice: Invoice) -> TaxCase:
    """:returns: the tax case a receipt of the invoice is suggested with (the lowest rule)."""
    cases = tax_cases(invoice)
    if cases:
        return min(cases, key=lambda c: c.rule_id)
    return tax_case("S", invoice.seller.address.country if invoice.seller.address else None)


def query_of(invoice: Invoice) -> SupplierQuery:
    """:returns: who the seller is, for matching a contact."""
    ibans = [i for m in invoice.payment_means for i in m.ibans]
    return SupplierQuery(
        name=invoice.seller.name or invoice.seller.trading_name or "unnamed seller",
        vat_id=invoice.seller.vat_id,
        iban=ibans[0] if ibans else None,
    )


def _problems(
    invoice: Invoice, cases: set[TaxCase], positions: list[SuggestedPosition]
) -> list[str]:
    problems = []
    if invoice.currency != "EUR":
        problems.append(
            f"The invoice is in {invoice.currency}; receipts are drafted here only in EUR."
        )
    if len(cases) > 1:
        problems.append(
            "The VAT categories need different tax rules; split it into two receipts in sevDesk."
        )
    if not positions:
        problems.append("The invoice has no VAT breakdown to build positions from.")
    for index, p in enumerate(positions, 1):
        if p.tax_rate not in RATES:
            problems.append(
                f"Position {index}: rate {p.tax_rate:f} % is no German rate (0, 7, 19)."
            )
        elif cents(p.net * p.tax_rate / 100) != p.tax:
            problems.append(
                f"Position {index}: the VAT {p.tax:f} differs from {p.net:f} x {p.tax_rate:f} "
                "% by rounding; give the positions yourself."
            )
        if p.account_number is None:
            problems.append(f"Position {index}: no booking account fits; give account_numbers.")
    return problems


def _exemption(invoice: Invoice) -> str | None:
    reasons = [v.exemption_reason or v.exemption_code for v in invoice.vat_breakdown]
    return "; ".join(r for r in reasons if r) or None


def _note(kind: str, invoice: Invoice, supplier: Supplier) -> str:
    parts = ["A suggestion: the human decides."]
    if kind == "revenue":
        parts.append("A supplier credit note (381) becomes an Einnahme (revenue) receipt.")
    if invoice.totals.gross is not None and invoice.totals.gross < ZERO:
        parts.append("The totals are negative: a credit written as an invoice.")
    if supplier.contact_id is None:
        parts.append("The seller matches no contact and would be saved by name only.")
    return " ".join(parts)

"""The content rules of the Factory saves (``docs/sevdesk-api.md`` §2.4-2.6, §3.4, Q32, Q35).

- ``taxRule`` must be one of GET /TaxRule; on bookkeeping 2.0 every position's ``taxRate`` must
  be one the rule allows (§3.4: rule 1 and 3 take 0/7/19, the export and exempt rules only 0),
  else 422. One-Stop-Shop rules (18-20) take the rates of the address country, another member
  state (else 422).
- Advance and partial invoices (AR, TR) only with rule 1 or 11 (spec, 2.0 changes).
- Credit notes (Q35): UNDERACHIEVEMENT needs ``refSrcInvoice`` and the invoice's tax rates
  (else code 456); PROVISION needs rule 9; the credit notes of an invoice must not exceed it
  (code 455); an e-invoice credit note needs ``paymentMethod`` (HTTP 400, code 830).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.documents import CreditNote, DocBase, Invoice, PosBase
from sevdesk_mcp.fake.lifecycle import (
    CODE_TAX_RATE_DIFFERS,
    ensure_credit_within,
    ensure_source_invoice,
)
from sevdesk_mcp.fake.reference import TAX_RULE_IDS
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError, money

CODE_E_INVOICE_MISSING: Final = 830
STANDARD: Final = frozenset({Decimal(0), Decimal(7), Decimal(19)})
ONLY_ZERO: Final = frozenset({Decimal(0)})
# rule id -> allowed rates; a rule missing here (One-Stop-Shop 18-20) takes any rate
RULE_RATES: Final[Mapping[int, frozenset[Decimal]]] = {
    1: STANDARD,
    3: STANDARD,
    8: STANDARD,
    9: STANDARD,
    **{rule: ONLY_ZERO for rule in (2, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 21, 22)},
}
PREPAYMENT_RULES: Final = frozenset({1, 11})
OSS_RULES: Final = frozenset({18, 19, 20})
# One-Stop-Shop rates by StaticCountry id of the fake's member states (AT, FR, NL, IT, IE)
OSS_RATES: Final[Mapping[int, frozenset[Decimal]]] = {
    2: frozenset(Decimal(r) for r in ("20", "13", "10")),
    4: frozenset(Decimal(r) for r in ("20", "10", "5.5", "2.1")),
    5: frozenset(Decimal(r) for r in ("21", "9")),
    6: frozenset(Decimal(r) for r in ("22", "10", "5", "4")),
    9: frozenset(Decimal(r) for r in ("23", "13.5", "9", "4.8")),
}
INVOICE_TYPES: Final = frozenset({"RE", "WKR", "SR", "MA", "TR", "AR", "ER"})
ORDER_TYPES: Final = frozenset({"AN", "AB", "LI"})
UNSUPPORTED_CATEGORIES: Final = frozenset({"ACCOUNT_TYPE", "ACCOUNTING_TYPE"})


def check_tax(store: Store, doc: DocBase, positions: Sequence[PosBase]) -> None:
    """Check ``taxRule`` and the positions' rates against it.

    :raises FakeError: 400 without a rule on 2.0; 422 for an unknown rule or a rate the rule
        does not allow.
    """
    if doc.taxRule is None:
        if store.version == "2.0":
            raise FakeError(400, "The field 'taxRule' is required")
        return
    rule = doc.taxRule.id
    if doc.taxRule.objectName != "TaxRule" or rule not in TAX_RULE_IDS:
        raise FakeError(422, f"Invalid tax rule {rule}")
    if store.version == "2.0" and rule in OSS_RULES:
        _check_oss(doc, positions)
        return
    allowed = RULE_RATES.get(rule)
    if store.version != "2.0" or allowed is None:
        return
    for pos in positions:
        if pos.taxRate not in allowed:
            raise FakeError(
                422, f"The tax rate {money(pos.taxRate)} is not allowed with tax rule {rule}"
            )


def _check_oss(doc: DocBase, positions: Sequence[PosBase]) -> None:
    """A One-Stop-Shop rule takes the rates of the address country, which must be another EU
    member state (the spec's ``deliveryAddressCountry`` defaults to ``addressCountry``).

    :raises FakeError: 422 for a country without One-Stop-Shop rates or a rate not of it.
    """
    country = doc.addressCountry.id if doc.addressCountry else None
    allowed = OSS_RATES.get(country or 0)
    if allowed is None:
        raise FakeError(422, f"One Stop Shop is not possible for the country {country}")
    for pos in positions:
        if pos.taxRate not in allowed:
            raise FakeError(
                422, f"The tax rate {money(pos.taxRate)} is not valid for the country {country}"
            )


def check_invoice(invoice: Invoice) -> None:
    """:raises FakeError: 422 for an unknown ``invoiceType`` or AR/TR without rule 1 or 11."""
    if invoice.invoiceType not in INVOICE_TYPES:
        raise FakeError(422, f"Invalid invoiceType {invoice.invoiceType}")
    rule = invoice.taxRule.id if invoice.taxRule else None
    if invoice.invoiceType in ("AR", "TR") and rule not in PREPAYMENT_RULES:
        raise FakeError(422, "Advance and partial invoices need tax rule 1 or 11")


def check_order_type(order_type: str) -> None:
    """:raises FakeError: 422 for an ``orderType`` other than AN, AB or LI."""
    if order_type not in ORDER_TYPES:
        raise FakeError(422, f"Invalid orderType {order_type}")


def check_credit_note(
    store: Store, note: CreditNote, positions: Sequence[PosBase], top: Mapping[str, object]
) -> None:
    """Check the credit-note rules of Q35 on a draft about to be saved.

    :raises FakeError: 400 without ``bookingCategory`` or, for UNDERACHIEVEMENT, without
        ``refSrcInvoice``; 400 code 830 for an e-invoice without ``paymentMethod``; 422 for an
        unsupported category or PROVISION without rule 9; 422 code 456 for a tax rate the
        invoice does not have; 422 code 455 when the credit notes would exceed the invoice.
    """
    _check_e_invoice(top)
    category = note.bookingCategory
    if not category:
        raise FakeError(400, "The field 'bookingCategory' is required")
    if category in UNSUPPORTED_CATEGORIES and store.version == "2.0":
        raise FakeError(422, f"bookingCategory {category} is not supported")
    if category == "PROVISION" and (note.taxRule is None or note.taxRule.id != 9):
        raise FakeError(422, "Invalid tax rule: PROVISION credit notes need tax rule 9")
    if category == "UNDERACHIEVEMENT" and note.refSrcInvoice is None:
        raise FakeError(400, "UNDERACHIEVEMENT credit notes need refSrcInvoice")
    if note.refSrcInvoice is None:
        return
    invoice = store.invoices.get(note.refSrcInvoice.id)
    ensure_source_invoice(invoice)
    if category == "UNDERACHIEVEMENT":
        rates = {p.taxRate for p in store.positions_of(invoice)}
        if any(p.taxRate not in rates for p in positions):
            raise FakeError(
                422, "Different taxRate than origin document", code=CODE_TAX_RATE_DIFFERS
            )
    ensure_credit_within(store, invoice, note.id, note.sumGross)


def _check_e_invoice(top: Mapping[str, object]) -> None:
    flag = top.get("propertyIsEInvoice")
    if flag in (True, 1, "1", "true") and not top.get("paymentMethod"):
        raise FakeError(
            400,
            "Missing information for the e-invoice",
            code=CODE_E_INVOICE_MISSING,
            data={"missing information": ["document_paymentMethod"]},
        )

"""XRechnung CIUS rules (BR-DE-*), for XRECHNUNG documents and the outgoing preflight."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from sevdesk_mcp.domain.einvoice import rules_de_pay
from sevdesk_mcp.domain.einvoice.findings import Finding, error, warning, xpath
from sevdesk_mcp.domain.einvoice.model import Address, Invoice, PaymentMeans
from sevdesk_mcp.domain.einvoice.profiles import XRECHNUNG_3

TYPE_CODES: Final = frozenset({"326", "380", "384", "389", "381", "875", "876", "877"})
_PHONE: Final = re.compile(r".*([0-9].*){3,}.*")
_EMAIL: Final = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_VAT_CATEGORIES: Final = frozenset({"S", "Z", "E", "AE", "K", "G", "L", "M"})


def check(invoice: Invoice) -> Iterator[Finding]:
    """:returns: the findings of the BR-DE rules."""
    yield from _seller(invoice)
    yield from _buyer(invoice)
    yield from _document(invoice)
    yield from _payment(invoice)


def _seller(invoice: Invoice) -> Iterator[Finding]:
    seller = invoice.seller
    yield from _address(invoice, seller.address, ("BR-DE-3", "BR-DE-4"), "seller", "BG-5")
    contact = seller.contact
    if contact is None:
        yield error(
            "BR-DE-2",
            "XRechnung needs the seller's contact (BG-6): name, phone and e-mail.",
            xpath(invoice, "BG-4"),
        )
        return
    where = xpath(invoice, "BG-6")
    for rule, value, words in (
        ("BR-DE-5", contact.name, "name or department"),
        ("BR-DE-6", contact.phone, "phone number"),
        ("BR-DE-7", contact.email, "e-mail address"),
    ):
        if not value:
            yield error(rule, f"XRechnung needs the seller contact's {words}.", where)
    if contact.phone and not _PHONE.match(contact.phone):
        yield warning(
            "BR-DE-27",
            "The seller contact's phone number should contain at least three digits.",
            where,
        )
    if contact.email and not _EMAIL.match(contact.email):
        yield warning(
            "BR-DE-28",
            "The seller contact's e-mail address does not look like one (one @, a domain).",
            where,
        )


def _buyer(invoice: Invoice) -> Iterator[Finding]:
    yield from _address(invoice, invoice.buyer.address, ("BR-DE-8", "BR-DE-9"), "buyer", "BG-8")
    if invoice.deliver_to is not None:
        yield from _address(
            invoice, invoice.deliver_to, ("BR-DE-10", "BR-DE-11"), "deliver-to", "BG-15"
        )
    if not invoice.buyer_reference:
        yield error(
            "BR-DE-15",
            "XRechnung needs the buyer reference (BT-10): for public buyers the Leitweg-ID.",
            xpath(invoice, "BT-10"),
        )


def _address(
    invoice: Invoice, address: Address | None, rules: tuple[str, str], who: str, term: str
) -> Iterator[Finding]:
    where = xpath(invoice, term)
    if address is None or not address.city:
        yield error(rules[0], f"XRechnung needs the {who}'s city.", where)
    if address is None or not address.post_code:
        yield error(rules[1], f"XRechnung needs the {who}'s post code.", where)


def _document(invoice: Invoice) -> Iterator[Finding]:
    for index, vat in enumerate(invoice.vat_breakdown, 1):
        if vat.rate is None:
            yield error(
                "BR-DE-14",
                f"VAT breakdown {index} needs a VAT rate (BT-119), also when it is 0.",
                xpath(invoice, "BG-23", index),
            )
    categories = {v.category for v in invoice.vat_breakdown} | {
        line.category for line in invoice.lines
    }
    seller = invoice.seller
    rep = invoice.tax_representative is not None
    if categories & _VAT_CATEGORIES and not (seller.vat_id or seller.tax_number or rep):
        yield error(
            "BR-DE-16",
            "XRechnung needs the seller's VAT id (BT-31) or tax number (BT-32) for these VAT "
            "categories.",
            xpath(invoice, "BG-4"),
        )
    yield from rules_de_pay.skonto(invoice)
    names = [n.lower() for n in invoice.attachment_names]
    if len(names) != len(set(names)):
        yield error(
            "BR-DE-22",
            "Two attached documents have the same file name; each needs its own.",
            xpath(invoice, "BT-1"),
        )
    if invoice.type_code and invoice.type_code not in TYPE_CODES:
        yield warning(
            "BR-DE-17",
            f"Type code {invoice.type_code} is not one XRechnung expects (326, 380, 381, 384, "
            "389, 875, 876, 877).",
            xpath(invoice, "BT-3"),
        )
    if not (invoice.specification or "").startswith(XRECHNUNG_3):
        yield warning(
            "BR-DE-21",
            "The specification identifier (BT-24) is not the one of XRechnung 3.0; the invoice "
            "follows an older version.",
            xpath(invoice, "BT-24"),
        )
    if invoice.type_code == "384" and not invoice.preceding_invoices:
        yield warning(
            "BR-DE-26",
            "A corrected invoice (384) should name the invoice it corrects (BG-3).",
            xpath(invoice, "BG-3"),
        )


def _payment(invoice: Invoice) -> Iterator[Finding]:
    if not invoice.payment_means:
        yield error(
            "BR-DE-1",
            "XRechnung needs payment instructions (BG-16): how the invoice is paid.",
            xpath(invoice, "BG-16"),
        )
    for index, means in enumerate(invoice.payment_means, 1):
        yield from _means(invoice, index, means)


_MEANS: Final = (  # codes, what they need, rule ids, words
    (frozenset({"30", "58"}), "transfer", "BR-DE-23", "credit transfer (BG-17: the account)"),
    (frozenset({"48", "54", "55"}), "card", "BR-DE-24", "card payment (BG-18: the card)"),
    (frozenset({"59"}), "debit", "BR-DE-25", "direct debit (BG-19: the mandate)"),
)


def _means(invoice: Invoice, index: int, means: PaymentMeans) -> Iterator[Finding]:
    where = xpath(invoice, "BG-16", index)
    given = {
        "transfer": bool(means.ibans),
        "card": means.card,
        "debit": bool(means.mandate or means.debited_account),
    }
    for codes, needs, rule, words in _MEANS:
        if means.code not in codes:
            continue
        if not given[needs]:
            yield error(f"{rule}-a", f"Payment by {words} needs that group filled.", where)
        if any(value for kind, value in given.items() if kind != needs):
            yield error(
                f"{rule}-b",
                f"With {words.split(' (')[0]} the invoice may not also give the data of "
                "another payment means (BG-17, BG-18, BG-19).",
                where,
            )
    yield from rules_de_pay.iban(invoice, index, means)
    if means.code == "59":
        yield from _direct_debit(invoice, means, where)


def _direct_debit(invoice: Invoice, means: PaymentMeans, where: str) -> Iterator[Finding]:
    if not invoice.creditor_id:
        yield error("BR-DE-30", "Direct debit needs the creditor identifier (BT-90).", where)
    if not means.debited_account:
        yield error("BR-DE-31", "Direct debit needs the debited account (BT-91).", where)

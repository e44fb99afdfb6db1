"""What speaks for one document paying one transaction, as weights with reasons in words.

Weights add up to the confidence of a suggestion (at most 0.99). The rules:

- number named in the purpose: 0.55 exact, 0.50 read through OCR confusions (``1O41``), 0.30
  one typo away (a digit replaced or two swapped); minus 0.25 when it carries another kind's
  prefix (``GU`` for an invoice);
- amount: 0.35 exactly the open amount, 0.30 the open amount less the cash discount of the
  payment terms paid in time (0.15 late), 0.20 a few euros less (bank fees of the transfer),
  0.10 part of it (a partial payment, 0.15 when the purpose says instalment), minus 0.10 more
  than it (the rest of the transaction stays unbooked), 0.20 another currency at the booked rate;
- counterparty: 0.25 the contact's IBAN, 0.20 its customer number, 0.15 its name, plus 0.05
  when two of them agree;
- date: minus 0.40 when the money moved before the document's date.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Final, Literal

from sevdesk_mcp.domain.money import shown
from sevdesk_mcp.domain.reconciliation.index import discounted
from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Tx
from sevdesk_mcp.domain.reconciliation.text import words_of

Settle = Literal["full", "partial", "cash_discount", "fees", "foreign"]
MAX_FEES: Final = Decimal(25)
FEES_SHARE: Final = Decimal("0.03")
FOREIGN_SLACK: Final = Decimal("0.015")
GRACE_DAYS: Final = 3
_INSTALMENT: Final = ("rate", "teilzahlung", "anzahlung", "abschlag", "instalment")


@dataclass(frozen=True, slots=True)
class Weight:
    """One piece of evidence: its weight and the reason in words.

    :param anchor: whether it identifies the document on its own (a number).
    """

    value: float
    reason: str
    anchor: bool = False


@dataclass(frozen=True, slots=True)
class AmountFit:
    """How the transaction's amount fits the document's open amount."""

    settle: Settle
    weight: Weight


def label(doc: OpenDoc) -> str:
    """:returns: the document in words; a receipt by id (its number is third-party text)."""
    if doc.kind == "voucher":
        return f"receipt {doc.id}"
    word = "credit note" if doc.kind == "credit_note" else "invoice"
    return f"{word} {doc.number or doc.id}"


def amount_fit(tx: Tx, doc: OpenDoc) -> AmountFit:
    """:returns: how ``tx`` fits ``doc`` by amount."""
    paid, owed = tx.rest, doc.open
    if doc.currency != tx.currency:
        return _foreign(tx, doc)
    if paid == owed:
        return AmountFit("full", Weight(0.35, f"the amount {shown(paid)} is exactly what is open"))
    cheaper = discounted(doc)
    if cheaper is not None and abs(paid - cheaper) <= Decimal("0.01"):
        return _discount(tx, doc)
    if paid > owed:
        rest = shown(paid - owed, tx.currency)
        why = f"{shown(owed)} is open; {rest} would stay unbooked"
        return AmountFit("full", Weight(-0.10, why))
    return _short(tx, owed - paid)


def _short(tx: Tx, missing: Decimal) -> AmountFit:
    paid, owed = tx.rest, tx.rest + missing
    if missing <= min(MAX_FEES, owed * FEES_SHARE):
        why = f"{shown(missing, tx.currency)} less than open: the bank's fees for the transfer?"
        return AmountFit("fees", Weight(0.20, why))
    said = f"{shown(paid)} of the {shown(owed)} open: a partial payment"
    if any(w.startswith(_INSTALMENT) for w in words_of(tx.purpose)):
        return AmountFit("partial", Weight(0.15, said + "; the purpose speaks of an instalment"))
    return AmountFit("partial", Weight(0.10, said))


def _discount(tx: Tx, doc: OpenDoc) -> AmountFit:
    terms = doc.terms
    percent = f"{terms.discount_percent.normalize():f} %"
    late = (
        tx.day is not None
        and doc.issued is not None
        and (tx.day - doc.issued).days > terms.discount_days + GRACE_DAYS
    )
    if late:
        days = terms.discount_days
        why = f"the open amount less {percent} cash discount, but paid after the {days} days"
        return AmountFit("cash_discount", Weight(0.15, why))
    why = f"the open amount less the {percent} cash discount (Skonto) of the payment terms"
    return AmountFit("cash_discount", Weight(0.30, why))


def _foreign(tx: Tx, doc: OpenDoc) -> AmountFit:
    if doc.rate is None:
        return AmountFit("foreign", Weight(0.0, f"the document is in {doc.currency}"))
    expected = doc.open * doc.rate
    if abs(tx.rest - expected) > expected * FOREIGN_SLACK:
        return AmountFit("foreign", Weight(0.0, f"the document is in {doc.currency}"))
    why = (
        f"{shown(doc.open, doc.currency)} at the booked rate {doc.rate.normalize():f} is "
        f"{shown(expected, tx.currency)}"
    )
    return AmountFit("foreign", Weight(0.20, why))


def date_weight(tx: Tx, doc: OpenDoc) -> Weight | None:
    """:returns: the penalty when the money moved before the document existed."""
    if tx.day is None or doc.issued is None or tx.day >= doc.issued:
        return None
    return Weight(-0.40, f"the money moved before the document's date {doc.issued.isoformat()}")

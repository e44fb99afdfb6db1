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

from collections.abc import Callable
from decimal import Decimal
from functools import partial
from typing import Final, Literal, NamedTuple

import msgspec

from sevdesk_mcp.domain.money import shown
from sevdesk_mcp.domain.reconciliation.index import Cents, DocFacts, in_cents
from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Tx
from sevdesk_mcp.domain.reconciliation.text import words_of

Settle = Literal["full", "partial", "cash_discount", "fees", "foreign"]
Why = str | Callable[[], str]
MAX_FEES: Final = Decimal(25)
MAX_FEES_CENTS: Final = 2_500
FEES_SHARE: Final = Decimal("0.03")
FEES_PERCENT: Final = 3
FOREIGN_SLACK: Final = Decimal("0.015")
GRACE_DAYS: Final = 3
_INSTALMENT: Final = ("rate", "teilzahlung", "anzahlung", "abschlag", "instalment")


class Weight(NamedTuple):
    """One piece of evidence: its weight and the reason in words (a tuple: made per
    candidate, many times per transaction).

    :param why: the reason, or how to write it: most candidates are never shown, so their
        reasons are written only when asked for (:attr:`reason`).
    :param anchor: whether it identifies the document on its own (a number).
    """

    value: float
    why: Why
    anchor: bool = False

    @property
    def reason(self) -> str:
        """:returns: the reason in words."""
        return self.why if isinstance(self.why, str) else self.why()


class AmountFit(NamedTuple):
    """How the transaction's amount fits the document's open amount."""

    settle: Settle
    weight: Weight


class Paid(msgspec.Struct, frozen=True):
    """What the amount fit reads of a transaction, worked out once per transaction.

    :param cents: its unbooked rest in cents.
    :param instalment: whether its purpose speaks of an instalment.
    """

    tx: Tx
    cents: Cents
    instalment: bool

    @classmethod
    def of(cls, tx: Tx) -> Paid:
        """:returns: what the amount fit reads of ``tx``."""
        words = words_of(tx.purpose)
        return cls(tx, in_cents(tx.rest), any(w.startswith(_INSTALMENT) for w in words))


def label(doc: OpenDoc) -> str:
    """:returns: the document in words; a receipt by id (its number is third-party text)."""
    if doc.kind == "voucher":
        return f"receipt {doc.id}"
    word = "credit note" if doc.kind == "credit_note" else "invoice"
    return f"{word} {doc.number or doc.id}"


def amount_fit(paid: Paid, facts: DocFacts) -> AmountFit:
    """:returns: how the transaction fits the document by amount (compared in cents)."""
    tx, doc = paid.tx, facts.doc
    if doc.currency != tx.currency:
        return _foreign(tx, doc)
    if paid.cents == facts.open:
        return AmountFit("full", Weight(0.35, partial(_exactly, tx.rest)))
    if facts.cheaper is not None and -1 <= paid.cents - facts.cheaper <= 1:  # within a cent
        return _discount(tx, doc)
    if paid.cents > facts.open:
        return AmountFit("full", Weight(-0.10, partial(_over, tx, doc.open)))
    return _short(paid, doc, facts.open - paid.cents)


def _exactly(paid: Decimal) -> str:
    return f"the amount {shown(paid)} is exactly what is open"


def _over(tx: Tx, owed: Decimal) -> str:
    return f"{shown(owed)} is open; {shown(tx.rest - owed, tx.currency)} would stay unbooked"


def _short(paid: Paid, doc: OpenDoc, missing: Cents) -> AmountFit:
    # in cents: missing <= min(MAX_FEES, owed * FEES_SHARE)
    if missing <= MAX_FEES_CENTS and missing * 100 <= (missing + paid.cents) * FEES_PERCENT:
        return AmountFit("fees", Weight(0.20, partial(_fees, paid.tx, doc.open)))
    if paid.instalment:
        return AmountFit("partial", Weight(0.15, partial(_part, paid.tx, doc.open, True)))
    return AmountFit("partial", Weight(0.10, partial(_part, paid.tx, doc.open, False)))


def _fees(tx: Tx, owed: Decimal) -> str:
    missing = owed - tx.rest
    return f"{shown(missing, tx.currency)} less than open: the bank's fees for the transfer?"


def _part(tx: Tx, owed: Decimal, instalment: bool) -> str:
    said = f"{shown(tx.rest)} of the {shown(owed)} open: a partial payment"
    return said + "; the purpose speaks of an instalment" if instalment else said


def _discount(tx: Tx, doc: OpenDoc) -> AmountFit:
    terms = doc.terms
    late = (
        tx.day is not None
        and doc.issued is not None
        and (tx.day - doc.issued).days > terms.discount_days + GRACE_DAYS
    )
    if late:
        return AmountFit("cash_discount", Weight(0.15, partial(_late_discount, doc)))
    return AmountFit("cash_discount", Weight(0.30, partial(_discount_why, doc)))


def _percent(doc: OpenDoc) -> str:
    return f"{doc.terms.discount_percent.normalize():f} %"


def _late_discount(doc: OpenDoc) -> str:
    days = doc.terms.discount_days
    return f"the open amount less {_percent(doc)} cash discount, but paid after the {days} days"


def _discount_why(doc: OpenDoc) -> str:
    return f"the open amount less the {_percent(doc)} cash discount (Skonto) of the payment terms"


def _foreign(tx: Tx, doc: OpenDoc) -> AmountFit:
    if doc.rate is None:
        return AmountFit("foreign", Weight(0.0, f"the document is in {doc.currency}"))
    expected = doc.open * doc.rate
    if abs(tx.rest - expected) > expected * FOREIGN_SLACK:
        return AmountFit("foreign", Weight(0.0, f"the document is in {doc.currency}"))
    return AmountFit("foreign", Weight(0.20, partial(_rate, tx, doc, expected)))


def _rate(tx: Tx, doc: OpenDoc, expected: Decimal) -> str:
    assert doc.rate is not None  # the caller checked
    return (
        f"{shown(doc.open, doc.currency)} at the booked rate {doc.rate.normalize():f} is "
        f"{shown(expected, tx.currency)}"
    )


def date_weight(tx: Tx, doc: OpenDoc) -> Weight | None:
    """:returns: the penalty when the money moved before the document existed."""
    if tx.day is None or doc.issued is None or tx.day >= doc.issued:
        return None
    return Weight(-0.40, partial(_before, doc))


def _before(doc: OpenDoc) -> str:
    assert doc.issued is not None  # the caller checked
    return f"the money moved before the document's date {doc.issued.isoformat()}"

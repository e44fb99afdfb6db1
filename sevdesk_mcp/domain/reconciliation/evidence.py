"""What speaks for one document paying one transaction, as weights with reasons in words.

Weights add up to the confidence of a suggestion (at most 0.99). The rules:

- number named in the purpose: 0.55 exact, 0.50 read through OCR confusions (``1O41``), 0.30
  one typo away (a digit replaced or two swapped); minus 0.25 when it carries another kind's
  prefix (``GU`` for an invoice);
- amount: 0.35 exactly the open amount; 0.30 less by at most the cash discount the terms grant,
  paid within its days; 0.20 a few euros less when the purpose names the bank's charges
  (fees); 0.15 less by the size of a deduction that is neither (``short``: Skonto not granted
  or late, no fee cue; it stays open and is never confident, :mod:`.difference`); 0.10 part of
  it (a partial payment, 0.15 when the purpose says instalment); minus 0.10 more than it (the
  surplus stays unbooked); 0.20 another currency at the booked rate;
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
from sevdesk_mcp.domain.reconciliation import difference
from sevdesk_mcp.domain.reconciliation.charges import fee_cue
from sevdesk_mcp.domain.reconciliation.index import Cents, DocFacts, in_cents
from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Tx
from sevdesk_mcp.domain.reconciliation.text import words_of

Settle = Literal["full", "partial", "short", "cash_discount", "fees", "foreign"]
Why = str | Callable[[], str]
FOREIGN_SLACK: Final = Decimal("0.015")
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
    :param cue: the word or code of its purpose naming the bank's charges (:mod:`.charges`).
    :param skonto: whether its purpose speaks of Skonto.
    """

    tx: Tx
    cents: Cents
    instalment: bool
    cue: str | None = None
    skonto: bool = False

    @classmethod
    def of(cls, tx: Tx) -> Paid:
        """:returns: what the amount fit reads of ``tx``."""
        words = words_of(tx.purpose)
        instalment = any(w.startswith(_INSTALMENT) for w in words)
        skonto = any(w.startswith("skonto") for w in words)
        return cls(tx, in_cents(tx.rest), instalment, fee_cue(tx), skonto)


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
    if paid.cents > facts.open:
        return AmountFit("full", Weight(-0.10, partial(_over, tx, doc.open)))
    return _short(paid, facts, facts.open - paid.cents)


def _exactly(paid: Decimal) -> str:
    return f"the amount {shown(paid)} is exactly what is open"


def _over(tx: Tx, owed: Decimal) -> str:
    return (
        f"{shown(tx.rest - owed, tx.currency)} more than the {shown(owed)} open: book the open "
        "amount; the surplus stays unbooked on the transaction, ask the customer whether to "
        "refund it or keep it as a credit"
    )


def _short(paid: Paid, facts: DocFacts, missing: Cents) -> AmountFit:
    tx, doc, cheaper = paid.tx, facts.doc, facts.cheaper
    granted = cheaper is not None and cheaper - paid.cents <= 1  # within a cent of the terms
    on_time = granted and difference.in_time(tx, doc)
    exact = cheaper is not None and -1 <= paid.cents - cheaper <= 1
    if on_time and (paid.cue is None or exact):
        return AmountFit("cash_discount", Weight(0.30, partial(_discount_why, tx, doc)))
    if paid.cue is not None and difference.fees_fit(missing, paid.cents):
        return AmountFit("fees", Weight(0.20, partial(difference.fees_text, tx, doc, paid.cue)))
    if on_time:
        return AmountFit("cash_discount", Weight(0.30, partial(_discount_why, tx, doc)))
    return _left_open(paid, facts, missing, granted)


def _left_open(paid: Paid, facts: DocFacts, missing: Cents, granted: bool) -> AmountFit:
    """:returns: the fit of a shortfall that is neither a granted Skonto nor fees: a part
    payment, or a deduction to ask about (``short``)."""
    tx, doc = paid.tx, facts.doc
    if paid.instalment:
        return AmountFit("partial", Weight(0.15, partial(_part, tx, doc.open, True)))
    if granted:
        return AmountFit("short", Weight(0.15, partial(difference.late_text, tx, doc)))
    if difference.deducted(missing, facts.open):
        why = partial(difference.open_text, tx, doc, paid.cue, paid.skonto)
        return AmountFit("short", Weight(0.15, why))
    return AmountFit("partial", Weight(0.10, partial(_part, tx, doc.open, False)))


def _part(tx: Tx, owed: Decimal, instalment: bool) -> str:
    said = f"{shown(tx.rest)} of the {shown(owed)} open: a partial payment, the rest stays open"
    return said + "; the purpose speaks of an instalment" if instalment else said


def _discount_why(tx: Tx, doc: OpenDoc) -> str:
    days = difference.days_after(tx, doc)
    return (
        f"{difference.missing_text(tx, doc)}: the cash discount (Skonto) the terms grant "
        f"({difference.granted(doc)}), paid {days} days after the document's date"
    )


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

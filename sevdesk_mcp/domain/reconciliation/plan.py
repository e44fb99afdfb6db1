"""Allocation planning: how a transaction's unbooked rest is booked on documents, before
anything is sent.

Each booking takes at most the document's open amount and at most what the bookings before it
left of the transaction; a plan that over-books either side is refused, naming the booking and
the amount that fits. The payment type per booking follows the rules of a single payment
(:func:`sevdesk_mcp.domain.banking.payments.payment_type`, Q28): ``FULL_PAYMENT`` only for the one
booking that settles its document with all of the transaction, ``N`` for parts, ``CB`` when a
cash discount (Skonto) settles the rest, ``MTC`` when the bank's fees do.

A cash discount asked for is refused unless the terms grant it and the money came within its
days (:mod:`.difference`): the terms are in sevDesk, so the rule can be checked exactly. Fees
asked for are allowed within their bounds, since the bank's advice of its charges may reach a
human on paper, but without a fee cue in the purpose the preview warns that a deduction of the
customer's is no fee. A surplus of the transaction is never written off: it stays unbooked.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.banking.payments import CASH_DISCOUNT, FEES, PARTIAL, payment_type
from sevdesk_mcp.domain.money import ZERO, shown
from sevdesk_mcp.domain.reconciliation import difference
from sevdesk_mcp.domain.reconciliation.charges import fee_cue
from sevdesk_mcp.domain.reconciliation.difference import FEES_SHARE, MAX_FEES
from sevdesk_mcp.domain.reconciliation.evidence import label
from sevdesk_mcp.domain.reconciliation.index import HUNDRED, discounted
from sevdesk_mcp.domain.reconciliation.model import OpenDoc, Tx
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.safety.preview import Said, amount, say

Settle = Literal["auto", "partial", "cash_discount", "fees"]
Booked = Literal["full", "partial", "cash_discount", "fees"]
MAX_UNTERMED_DISCOUNT: Final = Decimal(3)  # percent, for receipts: their terms are not known
TYPES: Final[dict[str, str]] = {"partial": PARTIAL, "cash_discount": CASH_DISCOUNT, "fees": FEES}


class Wanted(msgspec.Struct, frozen=True):
    """One booking asked for: ``amount`` ``None`` takes what fits."""

    doc: OpenDoc
    amount: Decimal | None = None
    settle: Settle = "auto"


class Allocation(msgspec.Struct, frozen=True):
    """One planned booking.

    :param written_off: what a cash discount or fees settle without being paid.
    :param note: what a human should know before approving it (fees without a fee cue).
    """

    doc: OpenDoc
    amount: Decimal
    booked: Booked
    payment_type: str
    open_before: Decimal
    open_after: Decimal
    written_off: Decimal
    note: Said | None = None


class AllocationPlan(msgspec.Struct, frozen=True):
    """The bookings of one transaction, in order, and what stays unbooked of it."""

    tx: Tx
    allocations: tuple[Allocation, ...]
    rest_before: Decimal
    rest_after: Decimal

    @property
    def notes(self) -> tuple[Said, ...]:
        """:returns: what a human should know before approving the plan."""
        notes = [a.note for a in self.allocations if a.note]
        if self.rest_after > 0:
            notes.append(
                say(
                    "{0} of transaction {1} stays unbooked (nothing is written off with it): ask "
                    "whether to refund it or keep it as a credit, or book it on another document.",
                    "{0} des Umsatzes {1} bleiben unverbucht (davon wird nichts ausgebucht): "
                    "Klären Sie, ob der Betrag erstattet oder als Guthaben behalten wird, oder "
                    "verbuchen Sie ihn auf ein anderes Dokument.",
                    amount(self.rest_after, self.tx.currency),
                    self.tx.id,
                )
            )
        return tuple(notes)


def plan_allocations(tx: Tx, wanted: Sequence[Wanted]) -> AllocationPlan:
    """:returns: the plan of booking ``tx`` on the ``wanted`` documents, in order.

    :raises ToolInputError: for an empty plan, a document twice, or an amount that is not
        positive or has more than two decimal places.
    :raises ToolError: for a document of the other direction or currency, a booking over the
        document's open amount or the transaction's rest, fees beyond what a bank takes, or a
        cash discount the terms do not grant, beyond it, or after its days.
    """
    if not wanted:
        raise ToolInputError("Give at least one document to book the transaction on.")
    keys = [w.doc.key for w in wanted]
    if len(set(keys)) != len(keys):
        raise ToolInputError("A document appears twice in the plan; name each document once.")
    rest, done = tx.rest, []
    for one in wanted:
        allocation = _allocate(tx, one, rest, len(wanted))
        done.append(allocation)
        rest -= allocation.amount
    return AllocationPlan(tx, tuple(done), tx.rest, rest)


def _allocate(tx: Tx, one: Wanted, rest: Decimal, count: int) -> Allocation:
    doc = one.doc
    _refuse_mismatch(tx, doc)
    amount = one.amount if one.amount is not None else min(doc.open, rest)
    _refuse_amount(tx, doc, amount, rest)
    booked = _booked(tx, doc, amount, one.settle)
    if booked in TYPES:
        kind = TYPES[booked]
    else:
        alone = count == 1
        kind = payment_type(amount, doc.open, tx.amount if alone else None, rest if alone else None)
        kind = kind if alone else PARTIAL  # Q28: a shared transaction is booked in parts
    settled = booked in ("full", "cash_discount", "fees")
    return Allocation(
        doc=doc,
        amount=amount,
        booked=booked,
        payment_type=kind,
        open_before=doc.open,
        open_after=ZERO if settled else doc.open - amount,
        written_off=doc.open - amount if booked in ("cash_discount", "fees") else ZERO,
        note=_fees_note(tx, doc, amount) if booked == "fees" else None,
    )


def _refuse_mismatch(tx: Tx, doc: OpenDoc) -> None:
    if doc.sign != tx.sign:
        flow = "incoming" if tx.sign > 0 else "outgoing"
        needs = "incoming" if doc.sign > 0 else "outgoing"
        raise ToolError(
            f"Transaction {tx.id} is {flow} money, but {label(doc)} is paid with {needs} money. "
            "Choose a document of the transaction's direction."
        )
    if doc.currency != tx.currency:
        raise ToolError(
            f"{label(doc).capitalize()} is in {doc.currency}, the transaction's account in "
            f"{tx.currency}; such a payment is booked in sevDesk itself, with the exchange rate."
        )


def _refuse_amount(tx: Tx, doc: OpenDoc, amount: Decimal, rest: Decimal) -> None:
    if not amount.is_finite() or amount <= 0 or amount != amount.quantize(Decimal("0.01")):
        raise ToolInputError(
            f"The amount for {label(doc)} must be positive with at most 2 decimal places."
        )
    if amount > doc.open:
        raise ToolError(
            f"{label(doc).capitalize()} has only {shown(doc.open, doc.currency)} open, less than "
            f"{shown(amount, doc.currency)}. Book at most its open amount."
        )
    if amount > rest:
        raise ToolError(
            f"Transaction {tx.id} has only {shown(rest, tx.currency)} left for {label(doc)} after "
            f"the bookings before it, less than {shown(amount, tx.currency)}. Lower the amounts "
            "so that they add up to at most the transaction's unbooked rest."
        )


def _booked(tx: Tx, doc: OpenDoc, amount: Decimal, settle: Settle) -> Booked:
    if settle == "auto":
        return "full" if amount == doc.open else "partial"
    if settle == "partial":
        return "partial"
    if amount == doc.open:
        raise ToolInputError(
            f"{amount} settles {label(doc)} without a {settle.replace('_', ' ')}; use settle=auto."
        )
    allowed = _allowance(tx, doc, settle)
    missing = doc.open - amount
    if missing > allowed:
        raise ToolError(
            f"{label(doc).capitalize()} would have {shown(missing, doc.currency)} written off as "
            f"{settle.replace('_', ' ')}, more than the {shown(allowed, doc.currency)} allowed. "
            "Book it as a partial payment (settle=partial) instead."
        )
    return settle


def _allowance(tx: Tx, doc: OpenDoc, settle: Settle) -> Decimal:
    if settle == "fees":
        return min(MAX_FEES, (doc.open * FEES_SHARE).quantize(Decimal("0.01")))
    cheaper = discounted(doc)
    if cheaper is not None:
        _refuse_late(tx, doc)
        return doc.open - cheaper
    if doc.kind == "voucher":
        return (doc.gross * MAX_UNTERMED_DISCOUNT / HUNDRED).quantize(Decimal("0.01"))
    raise ToolError(
        f"The payment terms of {label(doc)} grant no cash discount (Skonto), or it is partly "
        "paid already, so the difference is not a cash discount and not bank fees. Book it as a "
        "partial payment (settle=partial): the rest stays open; ask the customer for it, or, "
        "to accept the deduction, issue a credit note for it."
    )


def _refuse_late(tx: Tx, doc: OpenDoc) -> None:
    if difference.in_time(tx, doc):
        return
    days = difference.days_after(tx, doc)
    when = f"{days} days after the document's date" if days is not None else "on an unknown date"
    raise ToolError(
        f"{label(doc).capitalize()} grants a cash discount of {difference.granted(doc)}, but the "
        f"money came {when} (grace: {difference.GRACE_DAYS} days). Book it as a partial payment "
        "(settle=partial): the rest stays open; ask the customer for it."
    )


def _fees_note(tx: Tx, doc: OpenDoc, paid: Decimal) -> Said:
    written_off = amount(doc.open - paid, doc.currency)
    if fee_cue(tx) is not None:
        return say(*_FEES, written_off, doc_said(doc))
    return say(f"{_FEES[0]} {_NO_CUE[0]}", f"{_FEES[1]} {_NO_CUE[1]}", written_off, doc_said(doc))


_FEES: Final = (
    "{0} of {1} is written off as bank fees (MTC, Nebenkosten des Geldverkehrs); fees never "
    "reduce the VAT base.",
    "{0} von {1} werden als Gebühren ausgebucht (MTC, Nebenkosten des Geldverkehrs); "
    "Gebühren mindern nie die Bemessungsgrundlage der Umsatzsteuer.",
)
_NO_CUE: Final = (
    "The purpose names no bank charges (Gebühr, Entgelt, Spesen, charges, SHA/BEN): if the "
    "customer deducted it (a Skonto the terms do not grant), book it with settle=partial and "
    "ask the customer instead.",
    "Der Verwendungszweck nennt keine Bankgebühren (Gebühr, Entgelt, Spesen, charges, "
    "SHA/BEN): Hat der Kunde den Betrag abgezogen (ein Skonto, das die Zahlungsbedingungen "
    "nicht gewähren), verbuchen Sie ihn mit settle=partial und fragen Sie stattdessen beim "
    "Kunden nach.",
)


def doc_said(doc: OpenDoc) -> Said:
    """:returns: the document in both languages; a receipt by id (its number is third-party
    text), an invoice or credit note by its number."""
    if doc.kind == "voucher":
        return say("receipt {0}", "Beleg {0}", doc.id)
    if doc.kind == "credit_note":
        return say("credit note {0}", "Gutschrift {0}", doc.number or doc.id)
    return say("invoice {0}", "Rechnung {0}", doc.number or doc.id)

"""Booking a planned match: one transaction on one or more documents, approved as one plan.

``prepare`` reads the transaction (its unbooked rest from the booking log, Q17) and every
document, plans the allocations (refusing over-booking of either side) and then prepares each
booking with the rules of a single payment
(:func:`~sevdesk_mcp.domain.banking.payments.prepare_payment`:
status, sign Q26, date format Q18, payment type Q28, account Q27). ``execute`` sends the
bookings one after another, never together and never retried; each completed one is recorded,
so a failure half-way names what is already booked.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.banking.payment_checks import read_transaction, unbooked_rest
from sevdesk_mcp.domain.banking.payment_words import (
    BINDING,
    INCOMING,
    OUTGOING,
    TYPE_WORDS,
    who,
)
from sevdesk_mcp.domain.banking.payments import (
    CLOSING,
    PaymentBooked,
    PaymentPlan,
    PaymentRequest,
    execute_payment,
    prepare_payment,
)
from sevdesk_mcp.domain.documents.lifecycle import MODELS, TargetKind
from sevdesk_mcp.domain.money import Money, money
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reconciliation.model import Tx
from sevdesk_mcp.domain.reconciliation.plan import (
    Allocation,
    AllocationPlan,
    Settle,
    Wanted,
    plan_allocations,
)
from sevdesk_mcp.domain.reconciliation.sources import DocRow, open_doc
from sevdesk_mcp.domain.records import read_one
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.safety.preview import Day, Fact, Preview, Said, amount, fact, say
from sevdesk_mcp.sevdesk import dates

IN_ORDER: Final = Said(
    "The bookings are sent one after another in this order. If one fails, those before it stay "
    "booked and are named; nothing is retried.",
    "Die Buchungen werden nacheinander in dieser Reihenfolge gesendet. Schlägt eine fehl, "
    "bleiben die vorherigen verbucht und werden genannt; nichts wird wiederholt.",
)
UNDO_MATCH: Final = Said(
    "Way back: undo the bookings of the transaction (the undo tool); it resets each document "
    "to open, which removes all of that document's payment bookings.",
    "Rückweg: die Buchungen des Umsatzes zurücknehmen; das setzt jedes Dokument auf offen "
    "zurück und entfernt alle seine Zahlungsbuchungen.",
)


class Asked(msgspec.Struct, frozen=True):
    """One booking asked for."""

    kind: TargetKind
    document_id: int
    amount: Decimal | None
    settle: Settle


class MatchPlan(msgspec.Struct, frozen=True):
    """The allocations and the one bookAmount request of each, in order."""

    allocation: AllocationPlan
    payments: tuple[PaymentPlan, ...]


class MatchBooked(msgspec.Struct, frozen=True, kw_only=True):
    """The bookings made, in order, each with its document as read back."""

    transaction_id: int
    bookings: list[PaymentBooked]
    unbooked_after: Money


async def prepare_match(
    client: SevdeskPort, transaction_id: int, asked: list[Asked], day: dt.date | None
) -> Prepared[MatchPlan]:
    """Check and plan every booking of the match (reads only).

    :returns: the preview of the whole plan and the plan.
    :raises ToolInputError: for an empty or repeated booking, an invalid amount, a deleted
        transaction.
    :raises ToolError: for a document that takes no payment, or a plan that over-books the
        transaction or a document.
    :raises PreconditionError: for an unknown or fully booked transaction.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    state = await read_transaction(client, transaction_id)
    if state.checkAccount is None or not state.amount:
        raise ToolError(f"Transaction {transaction_id} has no account or no amount; check it.")
    rest = await unbooked_rest(client, state)
    tx = Tx(
        id=state.id, account_id=state.checkAccount.id, amount=state.amount, rest=rest,
        day=dates.berlin_date(state.valueDate), counterparty=state.payeePayerName,
        iban=None, purpose=state.paymtPurpose,
    )  # fmt: skip
    wanted = [await _wanted(client, one) for one in asked]
    allocation = plan_allocations(tx, wanted)
    when = day or tx.day
    if when is None:
        raise ToolInputError(f"Transaction {tx.id} has no date; give date.")
    plans = []
    for one in allocation.allocations:
        closing = one.payment_type if one.payment_type in CLOSING else None
        request = PaymentRequest(
            one.doc.kind, one.doc.id, one.amount, when, tx.account_id, tx.id, closing
        )
        plans.append((await prepare_payment(client, request)).plan)
    plan = MatchPlan(allocation, tuple(plans))
    return Prepared(_preview(plan), plan)


async def _wanted(client: SevdeskPort, one: Asked) -> Wanted:
    row = await read_one(client, MODELS[one.kind], one.document_id, DocRow)
    doc = open_doc(one.kind, row)
    if doc is None:
        # the single payment's checks name why (draft, paid, cancelled …)
        await prepare_payment(client, _probe(one))
        raise ToolError(f"{MODELS[one.kind]} {one.document_id} takes no payment.")
    return Wanted(doc, one.amount, one.settle)


def _probe(one: Asked) -> PaymentRequest:
    return PaymentRequest(one.kind, one.document_id, Decimal("0.01"), dt.date.min, 0)


async def execute_match(client: SevdeskPort, plan: MatchPlan, progress: Progress) -> MatchBooked:
    """Send the bookings in order, each once, reading each document back.

    :returns: the bookings as made.
    :raises ToolError: for a known refusal.
    :raises OutcomeUnknownError: if a booking was sent and no answer arrived.
    :raises UpstreamError: if a write or a read-back fails.
    """
    booked = [await execute_payment(client, payment, progress) for payment in plan.payments]
    tx = plan.allocation.tx
    return MatchBooked(
        transaction_id=tx.id,
        bookings=booked,
        unbooked_after=money(plan.allocation.rest_after, tx.currency),
    )


def _preview(plan: MatchPlan) -> Preview:
    allocation, tx = plan.allocation, plan.allocation.tx
    facts = [
        fact("Bank transaction", "Umsatz", transaction_said(tx.id, tx.amount, tx.currency, tx.day,
             who(tx.counterparty, tx.purpose))),
        fact("Check account", "Zahlungskonto", say("id {0}", "ID {0}", tx.account_id)),
        fact("Unbooked before", "Unverbucht vorher", amount(allocation.rest_before, tx.currency)),
    ]  # fmt: skip
    pairs = zip(allocation.allocations, plan.payments, strict=True)
    facts += [_booking(index, one, payment) for index, (one, payment) in enumerate(pairs, 1)]
    facts.append(
        fact("Unbooked after", "Unverbucht danach", amount(allocation.rest_after, tx.currency))
    )
    warnings = [BINDING]
    if len(plan.payments) > 1:
        warnings.append(IN_ORDER)
    warnings += allocation.notes
    action = say(
        "Book bank transaction {0} on {1} document(s).",
        "Umsatz {0} auf {1} Dokument(e) verbuchen.",
        tx.id,
        len(plan.payments),
    )
    return Preview(action=action, facts=facts, warnings=warnings, undo=UNDO_MATCH)


def _booking(index: int, one: Allocation, payment: PaymentPlan) -> Fact:
    target = payment.target
    value = say(
        "{0}: {1}, {2}; open {3} → {4}",
        "{0}: {1}, {2}; offen {3} → {4}",
        target.named,
        amount(one.amount, target.currency),
        TYPE_WORDS[payment.payment_type],
        amount(one.open_before, target.currency),
        amount(one.open_after, target.currency),
    )
    return fact(f"Booking {index}", f"Buchung {index}", value)


def transaction_said(
    ident: int, value: Decimal | None, currency: str, day: dt.date | None, party: Said
) -> Said:
    """:returns: a bank transaction as a preview shows it: id, amount with its direction in
    words, day, and its counterparty and purpose (quoted)."""
    flow = INCOMING if (value or 0) > 0 else OUTGOING
    return say(
        "id {0}, {1} ({2}) on {3}{4}",
        "ID {0}, {1} ({2}) am {3}{4}",
        ident,
        amount(value, currency),
        flow,
        Day(day) if day else say("no date", "ohne Datum"),
        party,
    )

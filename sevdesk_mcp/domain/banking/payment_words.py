"""The preview of a payment booking, in a bookkeeper's words (German as sevDesk's UI says it,
English for the model), so that a bookkeeper sees what the booking does before approving it."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Final

from sevdesk_mcp.domain.banking.payment_checks import AccountCheck, TransactionCheck
from sevdesk_mcp.domain.documents.lifecycle import Target
from sevdesk_mcp.domain.lifecycle_table import said
from sevdesk_mcp.safety.preview import (
    Amount,
    Day,
    Fact,
    Piece,
    Preview,
    Said,
    amount,
    fact,
    quoted,
    say,
)

if TYPE_CHECKING:
    from sevdesk_mcp.domain.banking.payments import PaymentPlan

BINDING: Final = Said(
    "A booked payment is binding in the books. It can only be taken back by resetting the "
    "document to open, which removes ALL of its payment bookings, not only this one.",
    "Eine verbuchte Zahlung ist in der Buchhaltung verbindlich. Sie lässt sich nur durch "
    "Zurücksetzen des Dokuments auf offen zurücknehmen, und das entfernt ALLE seine "
    "Zahlungsbuchungen, nicht nur diese.",
)
UNDO: Final = Said(
    "Way back: reset the document to open (this removes all of its payment bookings).",
    "Rückweg: das Dokument auf offen zurücksetzen (das entfernt alle seine Zahlungsbuchungen).",
)
TYPE_WORDS: Final = {
    "FULL_PAYMENT": Said("full payment (FULL_PAYMENT)", "vollständige Zahlung (FULL_PAYMENT)"),
    "N": Said("partial payment (N)", "Teilzahlung (N)"),
    "CB": Said(
        "payment less a cash discount (CB): the rest is written off, the document is paid",
        "Zahlung abzüglich Skonto (CB): der Rest wird ausgebucht, das Dokument ist bezahlt",
    ),
    "MTC": Said(
        "payment less bank fees (MTC): the rest is written off, the document is paid",
        "Zahlung abzüglich Gebühren des Geldverkehrs (MTC): der Rest wird ausgebucht, das "
        "Dokument ist bezahlt",
    ),
}
INCOMING: Final = Said("incoming payment", "Zahlungseingang")
OUTGOING: Final = Said("outgoing payment", "Zahlungsausgang")


def payment_preview(
    plan: PaymentPlan, account: AccountCheck, transaction: TransactionCheck | None
) -> Preview:
    """:returns: the preview of ``plan``: facts, then the binding consequence and any doubt."""
    target, paid = plan.target, plan.amount
    flow = INCOMING if plan.signed > 0 else OUTGOING
    facts = [
        fact("Document", "Dokument", say("{0}, {1}", "{0}, {1}", target.named, _status(target))),
        _party(target),
        fact("Amount", "Betrag", say("{0}, {1}", "{0}, {1}", _money(target, paid), flow)),
        fact("Amount sent to sevDesk", "An sevDesk gesendet", _sent(plan)),
        fact("Payment date", "Zahlungsdatum", Day(plan.request.day)),
        fact("Payment type", "Zahlungsart", TYPE_WORDS[plan.payment_type]),
        fact("Check account", "Zahlungskonto", _account(account)),
    ]
    if transaction is not None:
        facts.append(fact("Bank transaction", "Umsatz", _transaction(target, transaction, plan)))
    facts += [
        fact("Open before", "Offen vorher", _money(target, target.open_amount)),
        fact("Open after", "Offen danach", _money(target, _open_after(plan))),
        fact("Status after", "Status danach", said(target.kind, plan.status_after)),
    ]
    return Preview(
        action=say("Book a payment on {0}.", "Eine Zahlung auf {0} verbuchen.", target.named),
        facts=facts,
        warnings=[BINDING, *_doubts(plan, account, transaction)],
        undo=UNDO,
    )


def _status(target: Target) -> Said:
    return said(target.kind, target.status)


def _money(target: Target, value: Decimal) -> Amount:
    return amount(value, target.currency)


def _sent(plan: PaymentPlan) -> Said:
    """:returns: the signed amount sent (the body's ``amount``), with what its sign means."""
    sent = amount(Decimal(str(plan.body["amount"])), plan.target.currency)
    if plan.signed > 0:
        return say("{0} (positive: incoming)", "{0} (positiv: Eingang)", sent)
    return say("{0} (negative: outgoing)", "{0} (negativ: Ausgang)", sent)


def _open_after(plan: PaymentPlan) -> Decimal:
    if plan.payment_type in ("CB", "MTC"):  # closing types settle the document
        return Decimal(0)
    return plan.target.open_amount - plan.amount


def _party(target: Target) -> Fact:
    if target.kind == "voucher" and target.credit_debit == "C":
        return fact("Supplier", "Lieferant", target.party)
    return fact("Customer", "Kunde", target.party)


def _account(account: AccountCheck) -> Said:
    how = (
        say("online bank account", "Online-Bankkonto")
        if account.online
        else say(
            "offline account or cash register: sevDesk creates the transaction",
            "Offline-Konto oder Kasse: sevDesk legt den Umsatz selbst an",
        )
    )
    name: Piece = (
        quoted(account.name)
        if account.name
        else say("check account {0}", "Zahlungskonto {0}", account.id)
    )
    return say("{0}, id {1}, {2}", "{0}, ID {1}, {2}", name, account.id, how)


def _transaction(target: Target, tx: TransactionCheck, plan: PaymentPlan) -> Said:
    left = tx.remaining - plan.amount
    return say(
        "id {0}, {1} on {2}{3}; unbooked before: {4}, after: {5}",
        "ID {0}, {1} am {2}{3}; unverbucht vorher: {4}, danach: {5}",
        tx.id,
        _money(target, tx.amount),
        Day(tx.day) if tx.day else say("no date", "ohne Datum"),
        who(tx.counterparty, tx.purpose),
        _money(target, tx.remaining),
        _money(target, left),
    )


def who(counterparty: str | None, purpose: str | None) -> Said:
    """:returns: a bank transaction's counterparty and purpose (quoted), each after a comma
    when the bank gave it; nothing when it gave neither."""
    given = [quoted(t) for t in (counterparty, purpose) if t and t.strip()]
    marks = "".join(f", {{{i}}}" for i in range(len(given)))
    return say(marks, marks, *given)


def _doubts(
    plan: PaymentPlan, account: AccountCheck, transaction: TransactionCheck | None
) -> list[Said]:
    target, doubts = plan.target, []
    if account.currency != target.currency:
        doubts.append(
            say(
                "The document is in {0}, the check account in {1}; check the amount before "
                "approving.",
                "Das Dokument lautet auf {0}, das Zahlungskonto auf {1}; prüfen Sie den Betrag "
                "vor der Freigabe.",
                target.currency,
                account.currency,
            )
        )
    if transaction and transaction.remaining > plan.amount:
        doubts.append(
            say(
                "The bank transaction keeps {0} unbooked for other documents; this payment is "
                "booked as a partial one (N) so that sevDesk does not use up the whole "
                "transaction.",
                "Vom Umsatz bleiben {0} für andere Dokumente unverbucht; diese Zahlung wird als "
                "Teilzahlung (N) verbucht, damit sevDesk nicht den ganzen Umsatz verbraucht.",
                _money(target, transaction.remaining - plan.amount),
            )
        )
    if target.date is not None and plan.request.day < target.date:
        doubts.append(
            say(
                "The payment date {0} is before the document date {1}.",
                "Das Zahlungsdatum {0} liegt vor dem Dokumentdatum {1}.",
                Day(plan.request.day),
                Day(target.date),
            )
        )
    return doubts

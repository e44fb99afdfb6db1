"""The preview of a payment booking, in the words of sevDesk's German UI with their English
meaning, so that a bookkeeper sees what the booking does before approving it."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Final

from sevdesk_mcp.domain.banking.payment_checks import AccountCheck, TransactionCheck
from sevdesk_mcp.domain.documents.lifecycle import Target
from sevdesk_mcp.domain.lifecycle_table import word
from sevdesk_mcp.safety.preview import Fact, Preview

if TYPE_CHECKING:
    from sevdesk_mcp.domain.banking.payments import PaymentPlan

BINDING: Final = (
    "Eine Zahlung verbuchen ist verbindlich (a booked payment is binding in the books). It can "
    "only be taken back by resetting the document to open (Zurücksetzen auf offen), which "
    "removes ALL of its payment bookings, not only this one."
)
TYPE_WORDS: Final = {
    "FULL_PAYMENT": "vollständige Zahlung (full payment, FULL_PAYMENT)",
    "N": "Teilzahlung (partial payment, N)",
    "CB": "Zahlung mit Skonto (cash discount, CB): the rest is written off, the document is paid",
    "MTC": "Zahlung abzüglich Geldverkehrskosten (bank fees, MTC): the rest is written off, "
    "the document is paid",
}


def payment_preview(
    plan: PaymentPlan, account: AccountCheck, transaction: TransactionCheck | None
) -> Preview:
    """:returns: the preview of ``plan``: facts, then the binding consequence and any doubt."""
    target, amount = plan.target, plan.amount
    flow = "Zahlungseingang (money in)" if plan.signed > 0 else "Zahlungsausgang (money out)"
    facts = [
        Fact("Dokument (document)", f"{target.where()}, {target.status_word}"),
        Fact(_party(target), target.contact or "(none)"),
        Fact("Betrag (amount)", f"{target.euros(amount)}, {flow}"),
        Fact("An sevDesk gesendet (amount sent)", f"{plan.body['amount']} (sign of the bank flow)"),
        Fact("Zahlungsdatum (payment date)", plan.request.day.isoformat()),
        Fact("Zahlungsart (payment type)", TYPE_WORDS[plan.payment_type]),
        Fact("Zahlungskonto (check account)", _account(account)),
    ]
    if transaction is not None:
        facts.append(Fact("Umsatz (bank transaction)", _transaction(target, transaction, plan)))
    facts += [
        Fact("Offen vorher (open before)", target.euros(target.open_amount)),
        Fact("Offen danach (open after)", target.euros(_open_after(plan))),
        Fact("Status danach (status after)", word(target.kind, plan.status_after)),
    ]
    return Preview(
        action=f"Zahlung verbuchen (book payment) on {target.label}",
        facts=facts,
        warnings=[BINDING, *_doubts(plan, account, transaction)],
    )


def _open_after(plan: PaymentPlan) -> Decimal:
    if plan.payment_type in ("CB", "MTC"):  # closing types settle the document
        return Decimal(0)
    return plan.target.open_amount - plan.amount


def _party(target: Target) -> str:
    if target.kind == "voucher" and target.credit_debit == "C":
        return "Lieferant (supplier)"
    return "Kunde (customer)"


def _account(account: AccountCheck) -> str:
    how = (
        "online bank account"
        if account.online
        else "offline account or cash register: sevDesk creates the transaction"
    )
    return f"{account.name}, id {account.id}, {how}"


def _transaction(target: Target, tx: TransactionCheck, plan: PaymentPlan) -> str:
    day = tx.day.isoformat() if tx.day else "no date"
    who = ", ".join(t for t in (tx.counterparty, tx.purpose) if t)
    left = tx.remaining - plan.amount
    return (
        f"id {tx.id}, {target.euros(tx.amount)} on {day}"
        + (f", {who}" if who else "")
        + f"; unbooked before: {target.euros(tx.remaining)}, after: {target.euros(left)}"
    )


def _doubts(
    plan: PaymentPlan, account: AccountCheck, transaction: TransactionCheck | None
) -> list[str]:
    target, doubts = plan.target, []
    if account.currency != target.currency:
        doubts.append(
            f"The document is in {target.currency}, the check account in {account.currency}; "
            "check the amount before approving."
        )
    if transaction and transaction.remaining > plan.amount:
        doubts.append(
            f"The bank transaction keeps {target.euros(transaction.remaining - plan.amount)} "
            "unbooked for other documents; this payment is booked as a partial one (N) so "
            "that sevDesk does not use up the whole transaction."
        )
    if target.date is not None and plan.request.day < target.date:
        doubts.append(
            f"The payment date {plan.request.day.isoformat()} is before the document date "
            f"{target.date.isoformat()}."
        )
    return doubts

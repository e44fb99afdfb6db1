"""Suggesting matches for unbooked transactions, each with its allocation plan (read only)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Final

import msgspec

from sevdesk_mcp.domain.common import omitted_note
from sevdesk_mcp.domain.contacts.read import Untrusted
from sevdesk_mcp.domain.money import Money, money
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reconciliation.candidate import Candidate
from sevdesk_mcp.domain.reconciliation.category import HINTS
from sevdesk_mcp.domain.reconciliation.index import discounted
from sevdesk_mcp.domain.reconciliation.model import OpenDoc
from sevdesk_mcp.domain.reconciliation.plan import AllocationPlan, Settle, Wanted, plan_allocations
from sevdesk_mcp.domain.reconciliation.score import Verdict, reconcile
from sevdesk_mcp.domain.reconciliation.sources import Filter, read_books
from sevdesk_mcp.domain.reconciliation.status import CONFIDENT, MARGIN
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.safety.preview import Words

RULE: Final = (
    f"confident: confidence >= {CONFIDENT}, anchored by a document number in the purpose or by "
    "the only open document of the contact (IBAN or customer number) this amount fits, in the "
    "account's currency, no difference left to ask about (Skonto the terms do not grant or "
    f"after its days, a shortfall without a fee cue), and at least {MARGIN} ahead of the next "
    "suggestion; otherwise the suggestions are choices for a human. A difference is settled as "
    "cash discount only within the terms, as fees only when the purpose names the bank's "
    "charges; any other stays open. Amounts are positive money moved per booking."
)
SETTLES: Final[dict[str, Settle]] = {
    "full": "auto",
    "partial": "partial",
    "short": "partial",
    "cash_discount": "cash_discount",
    "fees": "fees",
}


class PlannedBooking(msgspec.Struct, frozen=True, kw_only=True):
    """One booking of a suggestion's plan."""

    kind: str
    document_id: int
    document: str
    amount: Money
    settle: Annotated[str, msgspec.Meta(description="full, partial, cash_discount or fees")]
    payment_type: str
    open_after: Money


class Suggestion(msgspec.Struct, frozen=True, kw_only=True):
    """Documents the transaction may pay, why, and how it would be booked."""

    confidence: float
    reasons: list[str]
    bookings: list[PlannedBooking]
    unbooked_after: Money | None
    note: str | None


class TransactionMatch(msgspec.Struct, frozen=True, kw_only=True):
    """An unbooked transaction and what it may pay."""

    transaction_id: int
    account_id: int
    date: dt.date | None
    amount: Money
    counterparty: Untrusted | None
    purpose: Untrusted | None
    status: Annotated[str, msgspec.Meta(description="confident, choices or no_match")]
    why: Annotated[str, msgspec.Meta(description="How sure and why; for no_match, what is missing")]
    suggestions: list[Suggestion]
    hint: str | None


class Matches(msgspec.Struct, frozen=True, kw_only=True):
    """Suggestions for the unbooked transactions, newest first; the counts cover all."""

    transactions: list[TransactionMatch]
    unbooked: int
    confident: int
    choices: int
    no_match: int
    rule: str
    note: str | None


async def suggest_matches(
    client: SevdeskPort, where: Filter, transaction_id: int | None, limit: int
) -> Matches:
    """:returns: the verdicts on the unbooked transactions of ``where``, with plans.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    books = await read_books(client, where)
    txs = [t for t in books.txs if transaction_id is None or t.id == transaction_id]
    verdicts = reconcile(txs, books.docs, books.parties)
    verdicts.sort(key=lambda v: (v.tx.day or dt.date.min, v.tx.id), reverse=True)
    count = {s: sum(v.status == s for v in verdicts) for s in ("confident", "choices", "no_match")}
    shown = verdicts[:limit]
    note = (
        "A list was cut short; some documents or transactions were not read."
        if books.truncated
        else None
    )
    return Matches(
        transactions=[_match(v) for v in shown],
        unbooked=len(verdicts),
        confident=count["confident"],
        choices=count["choices"],
        no_match=count["no_match"],
        rule=RULE,
        note=note or omitted_note(len(shown), len(verdicts), "transactions"),
    )


def _match(verdict: Verdict) -> TransactionMatch:
    tx = verdict.tx
    return TransactionMatch(
        transaction_id=tx.id,
        account_id=tx.account_id,
        date=tx.day,
        amount=money(tx.amount, tx.currency),
        counterparty=fence(tx.counterparty),
        purpose=fence(tx.purpose),
        status=verdict.status,
        why=verdict.why,
        suggestions=[_suggestion(verdict, c) for c in verdict.candidates],
        hint=HINTS.get(verdict.category or ""),
    )


def plan_of(verdict: Verdict, found: Candidate) -> AllocationPlan:
    """:returns: the allocation plan of a candidate.

    :raises ToolError: if it cannot be booked as suggested (another currency).
    """
    if found.settle == "foreign":
        raise ToolError("The document is in another currency: book it in sevDesk itself.")
    settle = SETTLES[found.settle]
    wanted = [Wanted(d, None, _settle_of(d, settle)) for d in found.docs]
    return plan_allocations(verdict.tx, wanted)


def _settle_of(doc: OpenDoc, settle: Settle) -> Settle:
    if settle == "cash_discount" and discounted(doc) is None:
        return "auto"
    return settle


def _suggestion(verdict: Verdict, found: Candidate) -> Suggestion:
    tx = verdict.tx
    try:
        plan = plan_of(verdict, found)
    except ToolError as exc:
        return Suggestion(
            confidence=found.score, reasons=list(found.reasons), bookings=[],
            unbooked_after=None, note=str(exc),
        )  # fmt: skip
    bookings = [
        PlannedBooking(
            kind=a.doc.kind,
            document_id=a.doc.id,
            document=_document(a.doc.kind, a.doc.number, a.doc.id),
            amount=money(a.amount, tx.currency),
            settle=a.booked,
            payment_type=a.payment_type,
            open_after=money(a.open_after, a.doc.currency),
        )
        for a in plan.allocations
    ]
    return Suggestion(
        confidence=found.score,
        reasons=list(found.reasons),
        bookings=bookings,
        unbooked_after=money(plan.rest_after, tx.currency),
        note=" ".join(Words("en", "model").text(n) for n in plan.notes) or None,
    )


def _document(kind: str, number: str | None, ident: int) -> str:
    if kind == "voucher":
        return f"Beleg (receipt) {ident}"
    word = "Gutschrift (credit note)" if kind == "credit_note" else "Rechnung (invoice)"
    return f"{word} {number or ident}"

"""Marking a bank transaction as private (Privatentnahme/-einlage, status 300) or back to
unbooked (100): ``PUT /CheckAccountTransaction/{id}`` with the status (``docs/sevdesk-api.md``
§2.8, §3.1). A booked transaction is refused: its bookings are undone first."""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.domain.banking.accounts import BOOKED, STATES, bookings_for
from sevdesk_mcp.domain.banking.payment_checks import PRIVATE, TransactionState, read_transaction
from sevdesk_mcp.domain.banking.payment_words import who
from sevdesk_mcp.domain.documents.lifecycle import send_once
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.reconciliation.book import transaction_said
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import ToolError
from sevdesk_mcp.safety.preview import Change, Preview, Said, fact, say
from sevdesk_mcp.sevdesk import dates
from sevdesk_mcp.sevdesk.paths import api_path

UNBOOKED: Final = 100
MEANING: Final = Said(
    "Private: the money is a withdrawal or deposit of the owner; it is booked against no "
    "document and counts as a private withdrawal or deposit (Privatentnahme/Privateinlage). It "
    "is binding in the books until it is set back to unbooked.",
    "Privat: Das Geld ist eine Entnahme oder Einlage des Inhabers; es wird gegen kein Dokument "
    "gebucht und zählt als Privatentnahme oder Privateinlage. Das ist in der Buchhaltung "
    "verbindlich, bis der Umsatz wieder auf unverbucht gesetzt wird.",
)
UNDO_PRIVATE: Final = Said(
    "Way back: mark the transaction again with private=false; it is then unbooked.",
    "Rückweg: den Umsatz wieder als nicht privat markieren; er ist dann unverbucht.",
)
UNDO_UNBOOKED: Final = Said(
    "Way back: mark the transaction as private again (private=true).",
    "Rückweg: den Umsatz wieder als privat markieren.",
)
STATE_SAID: Final = {
    100: Said("unbooked", "unverbucht"),
    200: Said("linked", "verknüpft"),
    300: Said("private", "privat"),
    350: Said("booked automatically", "automatisch verbucht"),
    400: Said("booked", "verbucht"),
}


class PrivatePlan(msgspec.Struct, frozen=True):
    """The transaction and the status to set."""

    transaction_id: int
    status: int


class Marked(msgspec.Struct, frozen=True, kw_only=True):
    """The transaction as read back."""

    transaction_id: int
    state: str
    written: list[str]


async def prepare_private(
    client: SevdeskPort, transaction_id: int, private: bool
) -> Prepared[PrivatePlan]:
    """:returns: the preview and the plan of marking the transaction.

    :raises ToolError: if it is booked, linked, or already in that state.
    :raises PreconditionError: for an unknown transaction.
    :raises ToolInputError: for a deleted transaction.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    tx = await read_transaction(client, transaction_id)
    logs, _ = await bookings_for(client, [tx.id])
    now = STATES.get(tx.status or 0, f"status {tx.status}")
    if tx.status in BOOKED or logs[tx.id]:
        raise ToolError(
            f"Transaction {tx.id} is booked against documents; undo its bookings first, then "
            "mark it."
        )
    wanted = PRIVATE if private else UNBOOKED
    if tx.status == wanted:
        raise ToolError(f"Transaction {tx.id} is already {now}; nothing to change.")
    if tx.status not in (PRIVATE, UNBOOKED):
        raise ToolError(f"Transaction {tx.id} is {now}; only unbooked or private ones change.")
    return Prepared(_preview(tx, now, wanted), PrivatePlan(tx.id, wanted))


async def execute_private(client: SevdeskPort, plan: PrivatePlan, progress: Progress) -> Marked:
    """Send the status once and read the transaction back.

    :returns: the transaction's state now.
    :raises OutcomeUnknownError: if it was sent and no answer arrived.
    :raises UpstreamError: if the write or the read-back fails.
    """
    path = api_path("CheckAccountTransaction", plan.transaction_id)
    said = f"marked transaction {plan.transaction_id} as {STATES[plan.status]}"
    where = f"transaction {plan.transaction_id} (its status)"
    await send_once(client, "PUT", path, json={"status": plan.status}, codes={}, where=where)
    progress.done(said)
    after = await read_transaction(client, plan.transaction_id)
    state = STATES.get(after.status or 0, f"status {after.status}")
    return Marked(transaction_id=after.id, state=state, written=[said])


def _preview(tx: TransactionState, now: str, wanted: int) -> Preview:
    party = who(tx.payeePayerName, tx.paymtPurpose)
    day = dates.berlin_date(tx.valueDate)
    before = STATE_SAID.get(tx.status or 0, say("{0}", "{0}", now))
    if wanted == PRIVATE:
        action = say(
            "Mark bank transaction {0} as private.", "Umsatz {0} als privat markieren.", tx.id
        )
    else:
        action = say(
            "Set bank transaction {0} back to unbooked.",
            "Umsatz {0} auf unverbucht zurücksetzen.",
            tx.id,
        )
    return Preview(
        action=action,
        facts=[
            fact(
                "Bank transaction", "Umsatz", transaction_said(tx.id, tx.amount, "EUR", day, party)
            ),
            fact("Status", "Status", Change(before, STATE_SAID[wanted])),
        ],
        warnings=[MEANING],
        undo=UNDO_PRIVATE if wanted == PRIVATE else UNDO_UNBOOKED,
    )

"""A payment reminder (Zahlungserinnerung, Mahnung) from an overdue invoice:
``POST /Invoice/Factory/createInvoiceReminder`` with the query ``invoice[id]``,
``invoice[objectName]`` (``docs/sevdesk-api.md`` §2.4, §3.2; ``spec/DEVIATIONS.md``).

sevDesk makes an invoice of type ``MA``: a draft without number, ``origin`` → the invoice. The
endpoint takes nothing but the invoice, so what the reminder says is sevDesk's to decide: the
dunning level is the invoice's next (``dunningLevel`` + 1), the debit its open amount, no fee
(``reminderCharge`` 0) and the deadline sevDesk's default; these fields are read-only in the
spec. ``prepare`` refuses what is no open, overdue invoice, and a second reminder draft for the
same invoice.
"""

from __future__ import annotations

import datetime as dt

import msgspec

from sevdesk_mcp.domain.documents.kinds import KINDS
from sevdesk_mcp.domain.documents.lifecycle import Target, read_target
from sevdesk_mcp.domain.documents.search import list_documents
from sevdesk_mcp.domain.documents.writes import DocumentWritten, read_back, read_document
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.lifecycle_table import open_statuses, said
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.writes import Prepared, Progress
from sevdesk_mcp.errors import OutcomeUnknownError, ToolError
from sevdesk_mcp.safety.preview import Day, Preview, Said, amount, fact, say
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import QueryValue, api_path
from sevdesk_mcp.sevdesk.wire_documents import Document

DUNNABLE = frozenset({"RE", "AR", "TR", "ER"})
DRAFT = 100
FIXED = Said(
    "sevDesk sets the fee (none) and the new deadline itself: the API takes neither. Change "
    "them in sevDesk before sending if needed.",
    "Mahngebühr (keine) und neue Frist setzt sevDesk selbst: die API nimmt keine an. Bei Bedarf "
    "vor dem Versand in sevDesk ändern.",
)
UNDO = Said(
    "The reminder is a draft: delete it to take it back.",
    "Die Mahnung ist ein Entwurf: Löschen nimmt sie zurück.",
)


class ReminderPlan(msgspec.Struct, frozen=True):
    """The invoice to remind of and the level the reminder will have."""

    invoice: Target
    level: int


class _Dunning(msgspec.Struct, frozen=True):
    id: int
    dunningLevel: int | None = None


async def prepare_reminder(
    client: SevdeskPort, invoice_id: int, today: dt.date
) -> Prepared[ReminderPlan]:
    """Check that the invoice is open and overdue and preview its reminder (reads only).

    :returns: the preview and the plan.
    :raises ToolError: for no open invoice, one not yet due, or one that has a reminder draft.
    :raises NotFoundError: for an unknown invoice.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    invoice = await read_target(client, "invoice", invoice_id)
    where = invoice.where()
    if invoice.type not in DUNNABLE:
        raise ToolError(
            f"{where} is of type {invoice.type}, not an invoice to a customer; only "
            "those (RE, AR, TR, ER) get a payment reminder."
        )
    if invoice.status not in open_statuses("invoice"):
        raise ToolError(
            f"{where} is {invoice.status_word}; only open or partly paid invoices get a payment "
            "reminder. Choose an open invoice that is past its due date."
        )
    due = await _due_date(client, invoice)
    if due is not None and due >= today:
        raise ToolError(
            f"{where} is not overdue: it is due on {due:%d.%m.%Y}. A payment "
            "reminder can be created from the day after."
        )
    await _refuse_open_draft(client, invoice)
    level = (await _level(client, invoice.id)) + 1
    return Prepared(_preview(invoice, level, due), ReminderPlan(invoice, level))


async def execute_reminder(
    client: SevdeskPort, plan: ReminderPlan, progress: Progress
) -> DocumentWritten:
    """Create the reminder draft once and read it back.

    :returns: the reminder (an invoice of type ``MA``, a draft) as sevDesk holds it.
    :raises OutcomeUnknownError: if it was sent and no answer arrived (names what to check).
    :raises UpstreamError: if the write or the read-back fails.
    """
    invoice = plan.invoice
    path = api_path("Invoice", "Factory", "createInvoiceReminder")
    query: dict[str, QueryValue] = {"invoice[id]": invoice.id, "invoice[objectName]": "Invoice"}
    where = f"the reminders (type MA) of {invoice.where()}"
    try:
        answer = await client.send("POST", path, query=query)
    except OutcomeUnknownError as exc:
        raise OutcomeUnknownError(
            f"{exc} Look at {where} in sevDesk to see whether it was created."
        ) from None
    reminder = wire.parse(one(answer), Document)
    progress.done(f"created reminder {reminder.id} for {invoice.where()}")
    written = [f"payment reminder draft {reminder.id} (level {plan.level}) for {invoice.where()}"]
    return await read_back(client, "invoice", reminder.id, written)


async def reminders_of(client: SevdeskPort, invoice_id: int) -> list[Document]:
    """:returns: the reminders (``MA``) whose ``origin`` is the invoice.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    found = await list_documents(client, KINDS["invoice"], {"invoiceType": "MA"}, whole=True)
    return [d for d in found if d.type() == "MA" and d.origin and d.origin.id == invoice_id]


async def _due_date(client: SevdeskPort, invoice: Target) -> dt.date | None:
    doc = await read_document(client, "invoice", invoice.id)
    day = dates.berlin_date(doc.date())
    return day + dt.timedelta(days=doc.timeToPay) if day and doc.timeToPay is not None else None


async def _refuse_open_draft(client: SevdeskPort, invoice: Target) -> None:
    drafts = [d for d in await reminders_of(client, invoice.id) if d.status == DRAFT]
    if drafts:
        raise PreconditionError(
            f"{invoice.where()} already has the payment reminder draft (id {drafts[0].id}); "
            "send that one (",
            Action.FINALIZE,
            ", then by email) or delete the draft first.",
            record=invoice.where(),
        )


async def _level(client: SevdeskPort, invoice_id: int) -> int:
    objects = await client.get(api_path("Invoice", invoice_id))
    return wire.parse(one(objects), _Dunning).dunningLevel or 0


def _preview(invoice: Target, level: int, due: dt.date | None) -> Preview:
    title = (
        Said("payment reminder", "Zahlungserinnerung")
        if level == 1
        else say("dunning letter no. {0}", "{0}. Mahnung", level - 1)
    )
    shown = say(
        "{0} (id {1}), {2}, due {3}",
        "{0} (ID {1}), {2}, fällig am {3}",
        invoice.named,
        invoice.id,
        said("invoice", invoice.status),
        Day(due) if due else Said("no date", "ohne Datum"),
    )
    facts = [
        fact("Invoice", "Rechnung", shown),
        fact("Customer", "Kunde", invoice.party),
        fact("Open amount", "Offener Betrag", amount(invoice.open_amount, invoice.currency)),
        fact("Reminder", "Mahnung", say("{0}, level {1}", "{0}, Mahnstufe {1}", title, level)),
        fact("Status after", "Status danach", Said("reminder draft", "Mahnungsentwurf")),
    ]
    action = say(
        "Create a {0} for {1} as a draft (type MA); nothing is sent",
        "{0} zu {1} als Entwurf (Typ MA) erstellen; nichts wird versendet",
        title,
        invoice.named,
    )
    return Preview(action=action, facts=facts, warnings=[FIXED], undo=UNDO)

"""Updating contacts: fields of the contact itself with one PUT, and its invoice address,
email address and phone number (:mod:`sevdesk_mcp.domain.contacts.details`) with one request each.

``prepare_update`` only reads and sends nothing when nothing differs; ``execute_update`` sends
the planned requests in order, each once (Q33), records each in ``progress`` so that a failure
half-way names what was already written, and reads the contact back.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.contacts.details import (
    DetailChanges,
    DetailWrite,
    plan_details,
    send_detail,
)
from sevdesk_mcp.domain.contacts.read import STATUSES
from sevdesk_mcp.domain.contacts.writes import (
    ContactWritten,
    all_contacts,
    is_person,
    read_contact,
    same_text,
    written_contact,
)
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.domain.writes import Prepared, Progress, change_fact, was
from sevdesk_mcp.errors import ToolError, ToolInputError
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.safety.preview import Fact, Piece, Preview, Said, quoted, say
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import api_path

ContactStatus = Literal["active", "lead", "pending"]
ContactField = Literal[
    "name", "surename", "familyname", "customerNumber", "vatNumber", "taxNumber", "status"
]

STATUS_CODES: Final = {name: code for code, name in STATUSES.items()}
STATUS_SAID: Final[dict[str, Said]] = {
    "lead": Said("lead", "Lead"),
    "pending": Said("pending", "ausstehend"),
    "active": Said("active", "aktiv"),
}
LABEL_SAID: Final[dict[ContactField, Said]] = {
    "name": Said("Name", "Name"),
    "surename": Said("First name", "Vorname"),
    "familyname": Said("Family name", "Nachname"),
    "customerNumber": Said("Customer number", "Kundennummer"),
    "vatNumber": Said("VAT number", "USt-IdNr."),
    "taxNumber": Said("Tax number", "Steuernummer"),
    "status": Said("Status", "Status"),
}
UPDATE_UNDO: Final = Said(
    "The old values can be set again with another update.",
    "Die alten Werte lassen sich mit einer weiteren Änderung wiederherstellen.",
)
LABELS: Final[dict[ContactField, str]] = {
    "name": "name",
    "surename": "first name",
    "familyname": "family name",
    "customerNumber": "customer number",
    "vatNumber": "VAT number",
    "taxNumber": "tax number",
    "status": "status",
}


class UpdatePlan(msgspec.Struct, frozen=True):
    """Every request ``execute_update`` sends, in order: the PUT of ``body`` to the contact
    (none when ``body`` is empty; ``labels`` say what it changes), then ``details``."""

    contact_id: int
    body: JsonObject
    labels: tuple[str, ...]
    details: tuple[DetailWrite, ...] = ()


async def prepare_update(
    client: SevdeskPort,
    contact_id: int,
    changes: dict[ContactField, str],
    details: DetailChanges | None = None,
) -> Prepared[UpdatePlan]:
    """Plan a PUT of the wanted values (by wire field) that differ from the contact's, and the
    writes of the invoice address, email address and phone number that differ (reads only).

    :returns: the preview (each change as ``old → new``) and the plan.
    :raises ToolInputError: for name fields that do not fit the contact's kind.
    :raises ToolError: if nothing would change, the customer number is taken, or an invoice
        address would have no city.
    :raises PreconditionError: for an unknown contact (saying where to find its id) or country.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    current = await read_contact(client, contact_id, "contact_id")
    _check_update_kind(changes, current)
    diffs = _diffs(changes, current)
    if any(f == "customerNumber" for f, _, _ in diffs):
        await _refuse_taken_number(client, contact_id, changes["customerNumber"])
    writes, detail_facts = await plan_details(
        client, contact_id, _name_after(changes, current), details or DetailChanges()
    )
    if not diffs and not writes:
        raise ToolError(f"Nothing would change: contact {contact_id} already has these values.")
    body: JsonObject = {field: value for field, _, value in diffs}
    facts = [_change(field, old, changes[field]) for field, old, _ in diffs]
    preview = Preview(
        action=say("Update contact {0} in sevDesk", "Kontakt {0} in sevDesk ändern", contact_id),
        facts=facts + detail_facts,
        undo=UPDATE_UNDO,
    )
    labels = tuple(LABELS[field] for field, _, _ in diffs)
    return Prepared(preview, UpdatePlan(contact_id, body, labels, tuple(writes)))


async def execute_update(
    client: SevdeskPort, plan: UpdatePlan, progress: Progress
) -> ContactWritten:
    """Send the planned requests, each once and in order, and read the contact back.

    :returns: the contact as sevDesk holds it, with what was written.
    :raises UpstreamError: if a write or the read-back fails (``progress`` names the writes
        already made).
    """
    written = [f"changed {label}" for label in plan.labels]
    if plan.body:
        await client.send("PUT", api_path("Contact", plan.contact_id), json=plan.body)
        progress.done(f"updated contact {plan.contact_id}")
    written += [await send_detail(client, plan.contact_id, w, progress) for w in plan.details]
    raw = await read_raw(client, "Contact", plan.contact_id)
    contact = wire.parse(raw, wire.Contact)
    lost = [f for f, v in plan.body.items() if str(raw.get(f)) != str(v)]
    note = f"sevDesk did not keep: {', '.join(lost)}." if lost else None
    return written_contact(contact, written, note)


async def _refuse_taken_number(client: SevdeskPort, contact_id: int, number: str) -> None:
    taken = {c.id for c in await all_contacts(client) if same_text(c.customerNumber, number)}
    if taken - {contact_id}:
        raise ToolError(
            f"Customer number {number} is already used by contact "
            f"{min(taken - {contact_id})}; choose another one."
        )


def _name_after(changes: dict[ContactField, str], current: wire.Contact) -> str:
    if not is_person(current):
        return changes.get("name") or current.name or ""
    first = changes.get("surename") or current.surename
    return " ".join(p for p in (first, changes.get("familyname") or current.familyname) if p)


def _check_update_kind(changes: dict[ContactField, str], current: wire.Contact) -> None:
    if is_person(current) and "name" in changes:
        raise ToolInputError(
            f"Contact {current.id} is a person: change first_name or family_name, not name."
        )
    if not is_person(current) and {"surename", "familyname"} & set(changes):
        raise ToolInputError(f"Contact {current.id} is an organisation: change name instead.")


def _change(field: ContactField, old: Piece | None, new: str) -> Fact:
    shown = STATUS_SAID[new] if field == "status" else quoted(new)
    return change_fact(LABEL_SAID[field], old, shown)


def _diffs(
    changes: dict[ContactField, str], current: wire.Contact
) -> list[tuple[ContactField, Piece | None, JsonValue]]:
    """:returns: the fields that change: the field, its old value for the preview (quoted, or
    ``None`` if empty) and the value to send."""
    diffs: list[tuple[ContactField, Piece | None, JsonValue]] = []
    for field, new in changes.items():
        if field == "status":
            if STATUS_CODES[new] != current.status:
                diffs.append((field, _status(current.status), STATUS_CODES[new]))
        elif new != (getattr(current, field) or ""):
            diffs.append((field, was(getattr(current, field)), new))
    return diffs


def _status(code: int | None) -> Piece:
    name = STATUSES.get(code or 0)
    return STATUS_SAID[name] if name else say("status {0}", "Status {0}", str(code))

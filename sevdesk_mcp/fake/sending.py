"""Sending documents: sendBy, getPdf without ``preventSendBy`` and sendViaEmail
(``docs/sevdesk-api.md`` §2.4-2.6, Q21, Q22, Q35).

Sending a draft makes it open (200), gives it its number and enshrines it (orders have no
``enshrined``). A credit note must already carry a number from SevSequence (Q35), and a draft
with a negative sum can not be enshrined (code 7100). sendViaEmail also records an
:class:`~sevdesk_mcp.fake.records.Email` in ``store.emails``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from sevdesk_mcp.fake.coerce import parse_flag, parse_text
from sevdesk_mcp.fake.documents import DRAFT, OPEN, CreditNote, DocBase, Order
from sevdesk_mcp.fake.lifecycle import ensure_not_negative
from sevdesk_mcp.fake.records import Email
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError

EMAIL_REQUIRED: Final = ("toEmail", "subject", "text")
MAIL_SEND_TYPE: Final = "VM"


def ensure_sendable(doc: DocBase) -> None:
    """Check that sending ``doc`` may finalise it.

    :raises FakeError: 400 for a credit-note draft without a number (Q35); 422 code 7100 for
        a draft with a negative sum.
    """
    if doc.status != DRAFT:
        return
    if isinstance(doc, CreditNote) and doc.number is None:
        raise FakeError(
            400,
            "The credit note has no creditNoteNumber. Take the next number from "
            "SevSequence/Factory/getByType and save it first.",
        )
    if not isinstance(doc, Order):
        ensure_not_negative(doc)


def finalise(store: Store, doc: DocBase, send_type: str) -> None:
    """Mark ``doc`` as sent: a draft becomes open (200), gets its number and is enshrined.

    The number sequence moves only here (§2.1); a number the client took from SevSequence
    without reserving it moves it too. A document that is no draft only records the new
    ``sendType`` and ``sendDate``.

    :raises FakeError: as :func:`ensure_sendable`.
    """
    ensure_sendable(doc)
    now = store.now()
    if doc.status == DRAFT:
        doc.status = OPEN
        number = doc.number
        if number is None:
            doc.set_number(store.next_number(doc.NUMBER_PREFIX))
        else:
            store.note_number_used(doc.NUMBER_PREFIX, number)
        doc.mark_enshrined(now)
    doc.sendType = send_type
    doc.sendDate = now
    store.save(doc)


def _addresses(value: object, field: str, *, required: bool) -> str | None:
    if value in (None, ""):
        if required:
            raise FakeError(400, f"The field '{field}' is required")
        return None
    text = parse_text(value, field)
    for address in text.split(","):
        local, at, domain = address.strip().partition("@")
        if not (local and at and domain) or " " in address.strip():
            raise FakeError(400, f"Invalid e-mail address in '{field}': {address.strip()!r}")
    return text


def parse_email(store: Store, doc: DocBase, body: Mapping[str, object]) -> Email:
    """:returns: the e-mail a sendViaEmail request describes (not yet stored).

    :raises FakeError: 400 for a missing ``toEmail``/``subject``/``text`` or an address
        without ``@``.
    """
    for name in EMAIL_REQUIRED:
        if body.get(name) in (None, ""):
            raise FakeError(400, f"The field '{name}' is required")
    to = _addresses(body["toEmail"], "toEmail", required=True)
    assert to is not None  # required
    owner = store.users.get(1)
    return Email(
        object=doc.ref(),
        sender=owner.email,
        to=to,
        subject=parse_text(body["subject"], "subject"),
        text=parse_text(body["text"], "text"),
        cc=_addresses(body.get("ccEmail"), "ccEmail", required=False),
        bcc=_addresses(body.get("bccEmail"), "bccEmail", required=False),
        copy=parse_flag(body.get("copy", False), "copy"),
        additionalAttachments=_optional_text(body.get("additionalAttachments")),
        sendXml=parse_flag(body.get("sendXml", False), "sendXml"),
    )


def _optional_text(value: object) -> str | None:
    return None if value in (None, "") else parse_text(value, "additionalAttachments")


def send_via_email(store: Store, doc: DocBase, email: Email) -> Email:
    """Send ``doc`` by e-mail: finalise it with ``sendType`` VM and record the e-mail.

    :returns: the stored e-mail.
    :raises FakeError: as :func:`ensure_sendable`.
    """
    finalise(store, doc, MAIL_SEND_TYPE)
    return store.add(store.emails, email)

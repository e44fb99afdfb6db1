"""What every write on an invoice, credit note or order shares: reading the document before
the write (:func:`read_document`) and after it (:func:`read_back`), the result DTO
:class:`DocumentWritten`, and the preview words of the kinds in the German terms of sevDesk's UI
with their English meaning (those of the status codes are in
:mod:`sevdesk_mcp.domain.lifecycle_table`).
"""

from __future__ import annotations

import datetime as dt
from typing import Final

import msgspec

from sevdesk_mcp.domain.documents.kinds import KINDS, KindName, Untrusted
from sevdesk_mcp.domain.documents.search import cancelled_ids
from sevdesk_mcp.domain.lifecycle_table import open_statuses
from sevdesk_mcp.domain.money import ZERO, Money, money
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_one
from sevdesk_mcp.errors import OutcomeUnknownError
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.safety.preview import Said, say
from sevdesk_mcp.sevdesk import dates
from sevdesk_mcp.sevdesk.wire_documents import Document

KIND_WORDS: Final[dict[str, str]] = {
    "invoice": "Rechnung (invoice)",
    "credit_note": "Gutschrift (credit note)",
    "order": "Angebot/Auftrag (order)",
}
KIND_SAID: Final[dict[str, Said]] = {
    "invoice": Said("invoice", "Rechnung"),
    "credit_note": Said("credit note", "Gutschrift"),
    "order": Said("order", "Angebot/Auftrag"),
}
DRAFT_SAID: Final[dict[str, Said]] = {
    "invoice": Said("invoice draft", "Rechnungsentwurf"),
    "credit_note": Said("credit note draft", "Gutschriftentwurf"),
    "order": Said("order draft", "Angebots-/Auftragsentwurf"),
}
_NAMED: Final[dict[str, tuple[tuple[str, str], tuple[str, str]]]] = {
    "invoice": (("invoice {0}", "Rechnung {0}"), ("invoice draft {0}", "Rechnungsentwurf {0}")),
    "credit_note": (
        ("credit note {0}", "Gutschrift {0}"),
        ("credit note draft {0}", "Gutschriftentwurf {0}"),
    ),
    "order": (
        ("order {0}", "Angebot/Auftrag {0}"),
        ("order draft {0}", "Angebots-/Auftragsentwurf {0}"),
    ),
}


class DocumentWritten(msgspec.Struct, frozen=True, kw_only=True):
    """A document as sevDesk holds it after a write (read back), and what the write did."""

    id: int
    kind: KindName
    number: str | None
    type: str | None
    status: str
    date: dt.date | None
    contact_id: int | None
    header: Untrusted | None
    net: Money
    tax: Money
    gross: Money
    paid: Money
    open: Money
    enshrined: bool
    written: list[str]


async def read_document(client: SevdeskPort, kind_name: KindName, document_id: int) -> Document:
    """:returns: the document ``document_id`` of kind ``kind_name``.

    :raises NotFoundError: if there is none.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    return await read_one(client, KINDS[kind_name].model, document_id, Document)


async def read_back(
    client: SevdeskPort, kind_name: KindName, document_id: int, written: list[str]
) -> DocumentWritten:
    """Read a document after a write.

    :returns: the document as sevDesk now holds it, with ``written``.
    :raises NotFoundError: if the document is gone.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    doc = await read_document(client, kind_name, document_id)
    cancelled = await cancelled_ids(client, KINDS[kind_name])
    return document_written(doc, kind_name, written, cancelled=doc.id in cancelled)


def document_written(
    doc: Document, kind_name: KindName, written: list[str], *, cancelled: bool = False
) -> DocumentWritten:
    """:returns: the result DTO for ``doc``, untrusted text fenced."""
    kind = KINDS[kind_name]
    status = (
        "cancelled" if cancelled else kind.statuses.get(doc.status or 0, f"status {doc.status}")
    )
    gross, paid = doc.sumGross or ZERO, doc.paidAmount or ZERO
    open_amount = gross - paid if doc.status in open_statuses(kind_name) else ZERO
    return DocumentWritten(
        id=doc.id,
        kind=kind_name,
        number=doc.number(),
        type=doc.type(),
        status=status,
        date=dates.berlin_date(doc.date()),
        contact_id=doc.contact.id if doc.contact else None,
        header=fence(doc.header),
        net=money(doc.sumNet, doc.currency),
        tax=money(doc.sumTax, doc.currency),
        gross=money(gross, doc.currency),
        paid=money(paid, doc.currency),
        open=money(open_amount, doc.currency),
        enshrined=doc.enshrined is not None,
        written=written,
    )


def label(kind_name: KindName, doc: Document) -> str:
    """:returns: e.g. ``Rechnung (invoice) RE-1042`` or ``… draft 700041`` for a draft."""
    number = doc.number()
    return (
        f"{KIND_WORDS[kind_name]} {number}" if number else f"{KIND_WORDS[kind_name]} draft {doc.id}"
    )


def named(kind_name: KindName, doc: Document) -> Said:
    """:returns: the document for a preview, in both languages: ``invoice RE-1042`` /
    ``Rechnung RE-1042``, or ``invoice draft (id 700041)`` / ``Rechnungsentwurf (ID 700041)``."""
    return named_by(kind_name, doc.number(), doc.id)


def named_by(kind_name: str, number: str | None, ident: int) -> Said:
    """:returns: a document of ``kind_name`` by its number, or as a draft by its id."""
    numbered, draft = _NAMED[kind_name]
    if number:
        return say(*numbered, number)
    en, de = draft
    return say(en, de, say("(id {0})", "(ID {0})", ident))


async def sent_once(
    client: SevdeskPort, method: str, path: str, where: str, json: JsonObject | None = None
) -> JsonValue:
    """Send one write about a document, once (Q33); a lost answer names what to check.

    :param where: what to look at in sevDesk if the answer is lost (see :func:`where`).
    :returns: sevDesk's answer, unwrapped from the envelope.
    :raises OutcomeUnknownError: if the request went out and no answer came back, saying
        which document to look at in sevDesk before trying again.
    :raises UpstreamError: if sevDesk refuses the write or cannot be reached.
    """
    try:
        return await client.send(method, path, json=json)
    except OutcomeUnknownError as exc:
        raise OutcomeUnknownError(
            f"{exc} Look at {where} in sevDesk to see whether the change was made."
        ) from None


def where(kind_name: KindName, document_id: int | None) -> str:
    """:returns: the document to check in sevDesk, or the list a new one would be in."""
    if document_id is None:
        return f"the list of {KINDS[kind_name].label}s (newest first)"
    return f"{KIND_WORDS[kind_name]} {document_id}"

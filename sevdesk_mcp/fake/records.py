"""Records the lifecycle endpoints leave behind: booking logs of documents and sent e-mails.

- :class:`DocumentLog` is what bookAmount answers (``InvoiceLog``, ``CreditNoteLog``,
  ``VoucherLog``) with the **positive** ``amountPayed`` (sic) of Q9 and §5.3.
- :class:`Email` is the ``Model_Email`` of the official spec that sendViaEmail answers; the fake
  keeps every one so tests can assert what was sent (``store.emails``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import ClassVar

from sevdesk_mcp.fake.wire import Ref, Row, money, to_wire
from sevdesk_mcp.jsontypes import JsonObject

_DOCUMENT_KEYS = {"Invoice": "invoice", "CreditNote": "creditNote", "Voucher": "voucher"}


@dataclass(kw_only=True, slots=True)
class DocumentLog(Row):
    """One booking of a document: its status change and the amount booked."""

    OBJECT_NAME: ClassVar[str] = "DocumentLog"
    HIDDEN: ClassVar[frozenset[str]] = frozenset({"update", "document", "amountPayed"})

    document: Ref
    fromStatus: int
    toStatus: int
    amountPayed: Decimal
    bookingDate: datetime
    transaction: Ref | None = None

    def wire(self, client: Ref) -> JsonObject:
        """:returns: the ``…Log`` object of Q9: the document under its own key, the amount
        positive whatever the sign of the booking.
        """
        out = to_wire(self, client)
        out.pop("transaction", None)
        out["objectName"] = f"{self.document.objectName}Log"
        out[_DOCUMENT_KEYS[self.document.objectName]] = self.document.wire()
        out["amountPayed"] = money(abs(self.amountPayed))
        return out


@dataclass(kw_only=True, slots=True)
class Email(Row):
    """An e-mail sent by sendViaEmail (``Model_Email``). ``from`` is a Python keyword, so the
    sender is stored as ``sender`` and written as ``from``.
    """

    OBJECT_NAME: ClassVar[str] = "Email"
    HIDDEN: ClassVar[frozenset[str]] = frozenset(
        {"sender", "copy", "additionalAttachments", "sendXml"}
    )

    object: Ref
    sender: str
    to: str
    subject: str
    text: str
    cc: str | None = None
    bcc: str | None = None
    arrived: datetime | None = None
    copy: bool = False
    additionalAttachments: str | None = None
    sendXml: bool = False

    def wire(self, client: Ref) -> JsonObject:
        """:returns: the Email object with ``from``."""
        out = to_wire(self, client)
        out["from"] = self.sender
        return out

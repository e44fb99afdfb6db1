"""What a tag can be on, and how such an object is named.

sevDesk's ``POST /Tag/Factory/create`` takes an Invoice, Order, Voucher or CreditNote (the
spec's enum); its API documents no tags on contacts. ``GET /TagRelation`` may still name other
objects (tagged in the web app); they are listed by their model name.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import find_one
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.safety.preview import Piece, Said, quoted, say
from sevdesk_mcp.sevdesk.wire import Ref
from sevdesk_mcp.sevdesk.wire_tags import Tagged

Kind = Literal["invoice", "credit_note", "order", "voucher"]
MODELS: Final[dict[Kind, str]] = {
    "invoice": "Invoice",
    "credit_note": "CreditNote",
    "order": "Order",
    "voucher": "Voucher",
}
KINDS: Final[dict[str, Kind]] = {model: kind for kind, model in MODELS.items()}
KIND_SAID: Final[dict[Kind, Said]] = {
    "invoice": Said("invoice", "Rechnung"),
    "credit_note": Said("credit note", "Gutschrift"),
    "order": Said("order", "Auftrag"),
    "voucher": Said("receipt", "Beleg"),
}


class Target(msgspec.Struct, frozen=True):
    """One object a tag is on or goes on, with its number (``None``: a draft without one)."""

    kind: Kind
    id: int
    number: str | None

    @property
    def model(self) -> str:
        """:returns: sevDesk's model name (``Invoice``)."""
        return MODELS[self.kind]

    def said(self) -> Said:
        """:returns: the object for a preview: ``invoice ⟦RE-1015⟧ (id 700015)``."""
        number: Piece = quoted(self.number) if self.number else say("without number", "ohne Nummer")
        return say("{0} {1} (id {2})", "{0} {1} (ID {2})", KIND_SAID[self.kind], number, self.id)

    def words(self) -> str:
        """:returns: the object for a message: ``invoice ⟦RE-1015⟧ (id 700015)``."""
        number = fence(self.number) or "without number"
        return f"{KIND_SAID[self.kind].en} {number} (id {self.id})"


MAX_KIND_CHARS: Final = 30


def kind_word(object_name: str) -> str:
    """:returns: the kind of an object a relation names (``credit_note``; an object this server
    cannot tag by its model name in lower case, such as ``contact``)."""
    known = KINDS.get(object_name)
    if known:
        return known
    word = clean(object_name).lower()  # a model name from sevDesk: a short identifier, or none
    return word if word.isidentifier() and len(word) <= MAX_KIND_CHARS else "unknown"


def number_of(kind: Kind, tagged: Tagged) -> str | None:
    """:returns: the object's number: a document's number, a receipt's ``description``."""
    if kind == "invoice":
        return tagged.invoiceNumber
    if kind == "credit_note":
        return tagged.creditNoteNumber
    if kind == "order":
        return tagged.orderNumber
    return tagged.description


async def read_target(client: SevdeskPort, kind: Kind, ident: int) -> Target:
    """:returns: the object ``ident`` of ``kind`` with its number.

    :raises PreconditionError: if sevDesk has no such object.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    tagged = await find_one(client, MODELS[kind], ident, Tagged)
    if tagged is None:
        raise PreconditionError(
            f"There is no {KIND_SAID[kind].en} {ident} in sevDesk; object_id is its sevDesk id "
            "(not its number), found by searching documents or receipts.",
            record=f"{MODELS[kind]} {ident}",
            field="object_id",
        )
    return Target(kind, ident, number_of(kind, tagged))


async def name_ref(client: SevdeskPort, ref: Ref) -> Target | None:
    """:returns: the object a relation names with its number, ``None`` for an object this server
    cannot tag or one that no longer exists.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    kind = KINDS.get(ref.objectName)
    if kind is None:
        return None
    tagged = await find_one(client, MODELS[kind], ref.id, Tagged)
    return None if tagged is None else Target(kind, ref.id, number_of(kind, tagged))


def same_ref(ref: Ref | None, target: Target) -> bool:
    """:returns: whether a relation's ``object`` is ``target``."""
    return ref is not None and ref.id == target.id and ref.objectName == target.model

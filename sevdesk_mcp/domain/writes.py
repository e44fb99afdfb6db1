"""What every write shares in the domain: the prepared plan with its preview, the record of
completed writes, and small helpers for building sevDesk write payloads.

``prepare`` functions return :class:`Prepared`; ``execute`` functions record each completed
write in :class:`Progress`, so a write that fails half-way can name what already changed.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.jsontypes import JsonObject
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.safety.preview import NONE, Change, Fact, Piece, Preview, Quoted, Said, quoted
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.envelope import one
from sevdesk_mcp.sevdesk.paths import api_path

P = TypeVar("P")


class Prepared(msgspec.Struct, Generic[P], frozen=True):
    """What ``prepare`` found: the preview a human sees and the plan ``execute`` carries out."""

    preview: Preview
    plan: P


class Progress(msgspec.Struct):
    """The writes ``execute`` has completed, for the report if a later step fails."""

    completed: list[str] = msgspec.field(default_factory=list)

    def done(self, what: str) -> None:
        """Record one completed write."""
        self.completed.append(what)


def ref(ident: int, object_name: str) -> JsonObject:
    """:returns: a relation as sevDesk takes it: an int id with its ``objectName`` (Q38)."""
    return {"id": ident, "objectName": object_name}


def change_fact(label: Said, old: Piece | None, new: Piece) -> Fact:
    """:returns: the preview fact ``old → new`` (``None``: empty before); the caller quotes
    third-party values (:func:`~sevdesk_mcp.safety.preview.quoted`)."""
    return Fact(label, Change(old, new))


def was(text: str | None) -> Piece | None:
    """:returns: a third-party value before a change, quoted, or ``None`` if it was empty."""
    shown = quoted(text)
    return shown if isinstance(shown, Quoted) else None


def whole(text: str | None) -> Piece:
    """:returns: third-party ``text`` that is written or sent as it is (an email's text, a
    document's head text), quoted in full with its line breaks (hidden characters are dropped
    when it is shown), or "none" for no or blank text."""
    kept = (text or "").strip()
    return Quoted(kept) if kept else NONE


class Created(msgspec.Struct, frozen=True):
    """The id in sevDesk's answer to a create."""

    id: int


async def post(client: SevdeskPort, word: str, body: JsonObject) -> int:
    """Create one object with ``POST /<word>``; sent once, never retried.

    :returns: the new object's id.
    :raises MalformedResponseError: if the answer holds no id.
    :raises UpstreamError: if sevDesk refuses the write or cannot be reached.
    """
    return wire.parse(one(await client.send("POST", api_path(word), json=body)), Created).id


async def reference_name(client: SevdeskPort, word: str, ident: int) -> str | None:
    """:returns: the name of entry ``ident`` of a reference list (``Unity``, ``StaticCountry``),
        or ``None`` if the list has no such entry.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    entries = wire.parse_all(
        (await client.get_all(api_path(word), max_items=1000)).items, wire.Named
    )
    for entry in entries:
        if entry.id == ident:
            return clean(entry.name or entry.nameEn or "") or f"{word} {ident}"
    return None

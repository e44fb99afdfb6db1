"""Seeding: a real sevDesk record becomes the overlay engine's row under the same id.

A record answers with its wire field names, the names of the engine's rows; each field the row
has is read with the engine's own :func:`~sevdesk_mcp.fake.coerce.coerce` (references stay
:class:`~sevdesk_mcp.fake.wire.Ref`), every other field is dropped. A row written in the
rehearsal is never replaced by the real one; a row not written is refreshed from each real
answer, so it follows changes made at sevDesk during the rehearsal.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from typing import get_type_hints

from sevdesk_mcp.errors import RehearsalRefusedError
from sevdesk_mcp.fake.coerce import coerce
from sevdesk_mcp.fake.models import SevClient
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import FakeError, Row
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.rehearsal.tables import table_of

log = logging.getLogger("sevdesk_mcp.rehearsal")

Key = tuple[str, int]


class UnreadableRecordError(RehearsalRefusedError):
    """A write names a real record the overlay's engine cannot read, so the rehearsal cannot
    apply it as sevDesk would; nothing was sent to sevDesk and the overlay is unchanged."""


def row_from_wire(model: type[Row], record: dict[str, JsonValue]) -> Row | None:
    """:returns: ``record`` as a row of ``model``, or ``None`` when it lacks a field the row
    needs or holds a value the engine cannot read (the record is then not rehearsed)."""
    return read_row(model, record)[0]


def read_row(model: type[Row], record: dict[str, JsonValue]) -> tuple[Row | None, str]:
    """:returns: ``record`` as a row of ``model`` and ``""``, or ``None`` and why the engine
    cannot read it (a field it needs is missing or holds a value it cannot read)."""
    hints = get_type_hints(model)
    values: dict[str, object] = {}
    try:
        for field in dataclasses.fields(model):
            if field.name in record and field.init:
                values[field.name] = coerce(hints[field.name], record[field.name], field.name)
        return model(**values), ""  # type: ignore[arg-type]  # typed per field by coerce()
    except (FakeError, TypeError, KeyError) as exc:
        log.info("rehearsal: %s %s not seeded: %s", model.OBJECT_NAME, record.get("id"), exc)
        return None, _reason(exc)


def _reason(exc: Exception) -> str:
    text = exc.message if isinstance(exc, FakeError) else str(exc)
    return " ".join(text.split()) or type(exc).__name__


class Seeder:
    """Puts real records into the overlay's store.

    :param store: the overlay engine's store.
    :param written: the keys of rows written in the rehearsal (never replaced); shared with
        the rehearsal, which adds to it.
    """

    def __init__(self, store: Store, written: set[Key]) -> None:
        self._store = store
        self._written = written
        self.unreadable: dict[Key, str] = {}  # real records the engine could not read: why

    def seed(self, answer: JsonValue) -> list[Key]:
        """Seed every record of ``answer`` (an ``objects`` value: one object or a list).

        :returns: the keys of the records in it, seeded or kept.
        """
        records = answer if isinstance(answer, list) else [answer]
        return [key for key in (self._one(r) for r in records) if key is not None]

    def seed_many(self, answers: Iterable[JsonValue]) -> None:
        """Seed every record of each of ``answers``."""
        for answer in answers:
            self.seed(answer)

    def _one(self, record: JsonValue) -> Key | None:
        if not isinstance(record, dict):
            return None
        name, ident = record.get("objectName"), record.get("id")
        if not isinstance(name, str) or not isinstance(ident, str | int) or isinstance(ident, bool):
            return None
        if not str(ident).isdigit():
            return None
        key = (name, int(ident))
        if name == SevClient.OBJECT_NAME:  # the account itself: every record's ``sevClient``
            client = row_from_wire(SevClient, record)
            if isinstance(client, SevClient):
                self._store.client = client
            return key
        table = table_of(self._store, name)
        if table is None or key in self._written:
            return key
        row, reason = read_row(table.model, record)
        if row is None:
            self.unreadable[key] = reason
        elif row.id == key[1]:
            self.unreadable.pop(key, None)
            table.insert(row)
        return key

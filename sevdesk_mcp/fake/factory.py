"""POST /Invoice/Factory/saveInvoice, /CreditNote/Factory/saveCreditNote, /Order/Factory/saveOrder
(``docs/sevdesk-api.md`` §2.4-2.6, §5.2, Q1, Q4, Q22, Q24, Q25, Q34, Q38).

A save creates a draft (status 100 only; invoices without a number, Q22) or, with ``id`` in the
top object, updates a draft. Positions in ``…PosSave`` are created, or updated by ``id``;
``…PosDelete`` is an array of ``{id, objectName}`` or null. Addresses are never copied from the
contact (Q24). Everything is checked on copies first, so a refused save changes nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from sevdesk_mcp.fake.coerce import apply_body, parse_flag, parse_int, parse_ref
from sevdesk_mcp.fake.documents import DRAFT, DocBase, PosBase
from sevdesk_mcp.fake.lifecycle import ensure_editable
from sevdesk_mcp.fake.store import Store, Table
from sevdesk_mcp.fake.wire import CODE_NOT_FOUND, FakeError, Ref, not_found

D = TypeVar("D", bound=DocBase)
P = TypeVar("P", bound=PosBase)

NEW_POSITION_FIELDS: Final = ("quantity", "price", "taxRate", "unity")
OWNER: Final = Ref("SevUser", 1)


@dataclass(frozen=True)
class FactoryKind(Generic[D, P]):
    """How one document kind is saved.

    :param key: the body key of the document, e.g. ``"invoice"``; positions are ``key + "Pos"``.
    :param new_doc: makes an empty draft of the kind.
    :param new_pos: makes an empty position pointing at a document.
    """

    name: str
    key: str
    date_field: str
    docs: Callable[[Store], Table[D]]
    positions: Callable[[Store], Table[P]]
    new_doc: Callable[[], D]
    new_pos: Callable[[Ref], P]


@dataclass(slots=True)
class Draft(Generic[D, P]):
    """A checked save, not yet stored: the document and its positions after the save."""

    doc: D
    keep: list[P]
    changed: list[P]
    added: list[P]
    removed: list[P]
    is_new: bool

    @property
    def positions(self) -> list[P]:
        """:returns: every position the document has after the save, in order."""
        return sorted([*self.keep, *self.changed], key=lambda p: p.id) + self.added


def _php_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return "array" if isinstance(value, dict | list) else "string"


def top_object(body: Mapping[str, object], kind: FactoryKind[D, P]) -> dict[str, object]:
    """:returns: the document object of the body, checked for ``objectName`` and ``mapAll``.

    :raises FakeError: 400 when it is missing, not an object, lacks ``objectName``/``mapAll``
        (Q38), or has a status other than 100 (Q22).
    """
    top = body.get(kind.key)
    if top is None:
        raise FakeError(400, f"The field '{kind.key}' is required")
    if not isinstance(top, dict):
        raise FakeError(400, f"{kind.key} expected array. {_php_type(top)} given")
    if top.get("objectName") != kind.name or "mapAll" not in top:
        raise FakeError(
            400, f'logic error: {kind.key} needs "objectName": "{kind.name}" and "mapAll": true'
        )
    parse_flag(top["mapAll"], "mapAll")
    if "status" in top and parse_int(top["status"], "status") != DRAFT:
        raise FakeError(400, f"A {kind.name} can only be saved with status DRAFT (100)")
    return top


def _position_items(body: Mapping[str, object], key: str) -> list[dict[str, object]]:
    raw = body.get(key)
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(i, dict) for i in raw):
        raise FakeError(400, f"{key} expected array of objects. {_php_type(raw)} given")
    return [dict(i) for i in raw]


def _delete_ids(body: Mapping[str, object], key: str) -> set[int]:
    raw = body.get(key)
    if raw is None:
        return set()
    items = raw if isinstance(raw, list) else [raw]
    return {parse_ref(item, key).id for item in items}


def _position(kind: FactoryKind[D, P], item: Mapping[str, object], old: Mapping[int, P]) -> P:
    name = f"{kind.name}Pos"
    if item.get("objectName") != name:
        raise FakeError(400, f'logic error: {kind.key}PosSave needs "objectName": "{name}"')
    if "id" in item and item["id"] is not None:
        ident = parse_int(item["id"], "id")
        if ident not in old:
            raise not_found(name, ident)
        pos = dataclasses.replace(old[ident])
    else:
        for field in NEW_POSITION_FIELDS:
            if item.get(field) in (None, ""):
                raise FakeError(400, f"The field '{field}' is required for a new {name}")
        pos = kind.new_pos(Ref(kind.name, 0))
    apply_body(pos, item)
    pos.compute()
    return pos


def _header(store: Store, doc: DocBase, top: Mapping[str, object], is_new: bool) -> None:
    if doc.contact is None:
        raise FakeError(400, "The field 'contact' is required")
    if doc.contact.objectName != "Contact":
        raise FakeError(400, "contact expected a reference to a Contact")
    store.contacts.get(doc.contact.id)
    sent = top.get("currency")
    if (is_new or "currency" in top) and not str(sent or "").strip():
        raise FakeError(400, "Currency is required.")
    foreign = str(sent or "EUR").strip().upper() != "EUR"
    if foreign and not (
        top.get("propertyExchangeRate") or top.get("propertyForeignCurrencyDeadline")
    ):
        raise FakeError(  # as the spec says of receipts (spec/DEVIATIONS.md G-002)
            400, "propertyExchangeRate or propertyForeignCurrencyDeadline is required"
        )


def prepare(
    store: Store, kind: FactoryKind[D, P], body: Mapping[str, object]
) -> tuple[Draft[D, P], dict[str, object]]:
    """Check a save request and build its result on copies.

    :returns: the draft to store and the request's document object.
    :raises FakeError: 400/404/409/422 as described in the module and :func:`top_object`.
    """
    top = top_object(body, kind)
    current = None
    if top.get("id") is not None:
        current = kind.docs(store).get(parse_int(top["id"], "id"))
        ensure_editable(current)
    elif kind.date_field not in top:
        raise FakeError(400, f"The field '{kind.date_field}' is required")
    doc = dataclasses.replace(current) if current else kind.new_doc()
    apply_body(doc, {k: v for k, v in top.items() if k != "status"})
    if doc.createUser is None:
        doc.createUser = OWNER
    _header(store, doc, top, current is None)
    old: dict[int, P] = {}
    if current is not None:
        old = {p.id: p for p in kind.positions(store) if p.document.id == current.id}
    items = [_position(kind, i, old) for i in _position_items(body, f"{kind.key}PosSave")]
    gone = _delete_ids(body, f"{kind.key}PosDelete")
    unknown = gone - set(old)
    if unknown:
        raise FakeError(
            404,
            f"No Model_{kind.name}Pos with the id {min(unknown)} was found",
            code=CODE_NOT_FOUND,
        )
    changed = [p for p in items if p.id]
    touched = gone | {p.id for p in changed}
    draft = Draft(
        doc=doc,
        keep=[p for i, p in old.items() if i not in touched],
        changed=[p for p in changed if p.id not in gone],
        added=[p for p in items if not p.id],
        removed=[p for i, p in old.items() if i in gone],
        is_new=current is None,
    )
    if not draft.positions:
        raise FakeError(400, "The given document must have at least one position")
    doc.set_sums(draft.positions)
    return draft, top


def commit(store: Store, kind: FactoryKind[D, P], draft: Draft[D, P]) -> list[P]:
    """Store a checked save.

    :returns: the document's positions after the save.
    """
    docs, positions = kind.docs(store), kind.positions(store)
    if draft.is_new:
        store.add(docs, draft.doc)
    else:
        docs.insert(draft.doc)
        store.save(draft.doc)
    for pos in draft.removed:
        store.remove(positions, pos)
    for pos in draft.changed:
        positions.insert(pos)
        store.save(pos)
    for number, pos in enumerate(draft.added, start=len(draft.keep) + len(draft.changed) + 1):
        setattr(pos, kind.key, draft.doc.ref())
        pos.positionNumber = pos.positionNumber or number
        store.add(positions, pos)
    return draft.positions

"""The answers of the Factory endpoints (``docs/sevdesk-api.md`` §5.2, Q1, Q4).

Unlike GET answers, the positions of a Factory save carry their prices and sums as JSON
**numbers**, ``quantity`` as ``true`` when it is 1, ``taxRate`` as ``"19.00"`` and repeat the
whole document under its key (``invoice``, ``creditNote``, ``order``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sevdesk_mcp.fake.documents import DocBase, PosBase
from sevdesk_mcp.fake.wire import Ref, number, to_wire
from sevdesk_mcp.jsontypes import JsonObject, JsonValue

NUMBER_KEYS: Final = (
    "price",
    "priceNet",
    "priceTax",
    "priceGross",
    "sumNet",
    "sumTax",
    "sumGross",
    "sumDiscount",
    "discount",
)


def position_wire(pos: PosBase, key: str, doc: JsonObject, client: Ref) -> JsonObject:
    """:returns: one position as a Factory save answers it (Q4)."""
    out = to_wire(pos, client)
    for name in NUMBER_KEYS:
        out[name] = number(getattr(pos, name))
    out["quantity"] = True if pos.quantity == 1 else number(pos.quantity)
    out["taxRate"] = f"{pos.taxRate:.2f}"
    out["positionNumber"], out["priority"] = pos.positionNumber, pos.priority
    out["isPercentage"], out["createNextPart"] = pos.isPercentage, pos.createNextPart
    out[key] = doc
    return out


def factory_payload(
    key: str,
    doc: DocBase,
    positions: Sequence[PosBase],
    client: Ref,
    extra: JsonObject | None = None,
) -> JsonObject:
    """:returns: ``{key: document, key + "Pos": [positions], **extra}`` (inside ``objects``)."""
    doc_wire = to_wire(doc, client)
    rows: list[JsonValue] = [position_wire(p, key, doc_wire, client) for p in positions]
    return {key: doc_wire, f"{key}Pos": rows, **(extra or {})}

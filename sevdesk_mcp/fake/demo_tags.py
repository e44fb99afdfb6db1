"""The demo company's tags: two on several documents and receipts, one on a single receipt.

Tags are stored without the store's clock (their ``create`` is a fixed day), so seeding them
moves no revision and no timestamp of what tests write later; no figure reads them.

- "Stammkunde": invoices RE-1015 and RE-1039 and credit note GU-1001 (Café Kastanie);
- "Projekt Theke": invoices RE-1026 and RE-1028 (Gasthaus Zum Hirschen) and the receipt
  SK-26-0388 (the timber from Sägewerk Kinzigtal);
- "Messe 2026": only the draft receipt HMS-26-0090 (Holzmesse Service), so removing it from
  that receipt removes the tag.
"""

from __future__ import annotations

from datetime import date
from typing import Final

from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.models import Tag, TagRelation
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import Ref

TAGGED_ON: Final = at(date(2026, 10, 1), 10)
DEMO_TAGS: Final = (
    ("Stammkunde", (("Invoice", "RE-1015"), ("Invoice", "RE-1039"), ("CreditNote", "GU-1001"))),
    ("Projekt Theke", (("Invoice", "RE-1026"), ("Invoice", "RE-1028"), ("Voucher", "SK-26-0388"))),
    ("Messe 2026", (("Voucher", "HMS-26-0090"),)),
)


def _object_id(store: Store, model: str, number: str) -> int:
    if model == "Invoice":
        return next(i.id for i in store.invoices if i.invoiceNumber == number)
    if model == "CreditNote":
        return next(c.id for c in store.credit_notes if c.creditNoteNumber == number)
    return next(v.id for v in store.vouchers if v.description == number)


def seed_tags(store: Store) -> None:
    """Add the demo tags and their relations to ``store``."""
    for name, objects in DEMO_TAGS:
        tag = store.tags.insert(Tag(name=name, create=TAGGED_ON, update=TAGGED_ON))
        for model, number in objects:
            target = Ref(model, _object_id(store, model, number))
            relation = TagRelation(tag=tag.ref(), object=target, create=TAGGED_ON)
            store.tag_relations.insert(relation)

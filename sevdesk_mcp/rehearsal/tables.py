"""Which table of the overlay engine's store holds which sevDesk model (by ``objectName``).

The overlay's tables count their ids from :data:`CREATED_ID_BASE` on, far above every id a real
sevDesk account gives (ids there are below 10**9 today), so a record created in a rehearsal
never takes the id of a real one, also not of one created at sevDesk during the rehearsal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from sevdesk_mcp.fake.exports import exports_of
from sevdesk_mcp.fake.store import Store, Table
from sevdesk_mcp.fake.voucher_saves import files_of
from sevdesk_mcp.fake.wire import Row

CREATED_ID_BASE: Final = 10**12
ID_BAND: Final = 10**9
# Export jobs are numbered in a job id's last group of 12 digits: the overlay's from here on.
CREATED_JOB_BASE: Final = 9 * 10**11

# objectName -> the attribute of :class:`Store` holding its rows.
TABLES: Final[dict[str, str]] = {
    "SevUser": "users",
    "Contact": "contacts",
    "ContactAddress": "addresses",
    "CommunicationWay": "communication_ways",
    "Part": "parts",
    "Invoice": "invoices",
    "InvoicePos": "invoice_positions",
    "CreditNote": "credit_notes",
    "CreditNotePos": "credit_note_positions",
    "Order": "orders",
    "OrderPos": "order_positions",
    "Voucher": "vouchers",
    "VoucherPos": "voucher_positions",
    "CheckAccount": "check_accounts",
    "CheckAccountTransaction": "transactions",
    "CheckAccountTransactionLog": "transaction_logs",
    "Tag": "tags",
    "TagRelation": "tag_relations",
}
# Tables the engine writes that no GET of a model reads (bookings' logs, sent e-mails).
ENGINE_ONLY: Final = ("document_logs", "emails")

# The positions of a document and the query that lists them at sevDesk.
POSITIONS: Final[dict[str, tuple[str, str]]] = {
    "Invoice": ("InvoicePos", "invoice"),
    "CreditNote": ("CreditNotePos", "creditNote"),
    "Order": ("OrderPos", "order"),
    "Voucher": ("VoucherPos", "voucher"),
}


def table_of(store: Store, object_name: str) -> Table[Row] | None:
    """:returns: the table holding ``object_name`` rows, or ``None`` for a model not kept."""
    attribute = TABLES.get(object_name)
    if attribute is None:
        return None
    table: Table[Row] = getattr(store, attribute)
    return table


def lift_ids(store: Store) -> None:
    """Let every table of ``store`` count new ids from :data:`CREATED_ID_BASE` on, each table
    in its own band of 10**9 ids, and the voucher documents in the band after them; the rows
    the engine starts with (its owner) are kept. Export jobs count from
    :data:`CREATED_JOB_BASE` on."""
    attributes = (*TABLES.values(), *ENGINE_ONLY)
    for band, attribute in enumerate(attributes):
        old: Table[Row] = getattr(store, attribute)
        fresh: Table[Row] = Table(old.model, CREATED_ID_BASE + band * ID_BAND)
        for row in old:
            fresh.insert(row)
        setattr(store, attribute, fresh)
    files = files_of(store)
    files.next_document = max(files.next_document, CREATED_ID_BASE + len(attributes) * ID_BAND)
    jobs = exports_of(store)
    jobs.next_job = max(jobs.next_job, CREATED_JOB_BASE + 1)


def all_rows(store: Store) -> Iterator[tuple[str, Row]]:
    """:returns: every row of the kept tables with its ``objectName``."""
    for name, attribute in TABLES.items():
        table: Table[Row] = getattr(store, attribute)
        for row in table:
            yield name, row

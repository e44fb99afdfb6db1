"""A write the overlay applied, told as a :class:`~sevdesk_mcp.safety.rehearsal.RehearsalChange`.

The rows a request touched come from comparing the overlay before and after (a row's ``update``
stamp moves with every change the engine makes); the action comes from the request.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Final
from zoneinfo import ZoneInfo

from sevdesk_mcp.fake.documents import DocBase, Invoice
from sevdesk_mcp.fake.receipts import Voucher
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import Row
from sevdesk_mcp.rehearsal.seed import Key
from sevdesk_mcp.rehearsal.tables import all_rows, table_of
from sevdesk_mcp.safety.rehearsal import RehearsalChange

_EXPORT_JOBS: Final = ("createdatev", "datevcsv")  # the export jobs that enshrine (lower case)

BERLIN: Final = ZoneInfo("Europe/Berlin")
Snapshot = dict[Key, datetime]

_ACTIONS: Final = {
    "sendViaEmail": "sent",
    "bookAmount": "booked",
    "enshrine": "enshrined",
    "cancelInvoice": "cancelled",
    "resetToDraft": "reset",
    "resetToOpen": "reset",
    "uploadTempFile": "uploaded",
}
_SAVES: Final = frozenset({"saveInvoice", "saveCreditNote", "saveOrder", "saveVoucher"})
_DRAFT_OF: Final = {"invoice": "100", "creditNote": "100", "order": "100", "voucher": "50"}
SIMULATED: Final = " (simulated: the rehearsal sends nothing, nobody received it)"


def snapshot(store: Store) -> Snapshot:
    """:returns: every kept row's key and ``update`` stamp."""
    return {(name, row.id): row.update for name, row in all_rows(store)}


class Touched:
    """The rows one request created, changed and deleted.

    :param before: the snapshot before the request.
    :param after: the snapshot after it.
    """

    def __init__(self, before: Snapshot, after: Snapshot) -> None:
        self.created = sorted(k for k in after if k not in before)
        self.changed = sorted(k for k in after if k in before and after[k] != before[k])
        self.deleted = sorted(k for k in before if k not in after)

    def keys(self) -> set[Key]:
        """:returns: every row the request wrote."""
        return {*self.created, *self.changed, *self.deleted}

    def primary(self, model: str, path_id: int | None) -> Key | None:
        """:returns: the row the request is about: the path's record, else the first record of
        the path's model it created or changed, else the first it touched at all."""
        if path_id is not None:
            return (model, path_id)
        for group in (self.created, self.changed):
            for key in group:
                if key[0] == model:
                    return key
        return next(iter((*self.created, *self.changed)), None)


def describe(  # noqa: PLR0913 - one request, its parts and what it did
    store: Store,
    method: str,
    path: str,
    body: Mapping[str, object],
    *,
    touched: Touched,
    was_draft: bool,
) -> RehearsalChange:
    """:returns: the change ``method path`` made to the overlay."""
    segments = path.strip("/").split("/")
    if segments[-1].lower().startswith(_EXPORT_JOBS):
        return _export_job(method, path, touched)
    model = segments[0]
    path_id = int(segments[1]) if len(segments) > 1 and segments[1].isdigit() else None
    key = touched.primary(model, path_id)
    row = _find(store, key)
    action = _action(
        method, segments[-1], body, row=row, created=key in touched.created, was_draft=was_draft
    )
    name = key[0] if key is not None else model
    number = _number(row)
    label = number or (f"#{key[1]}" if key is not None else _no_record(action))
    kind = f" ({row.invoiceType})" if isinstance(row, Invoice) and row.invoiceType != "RE" else ""
    summary = f"{name}{kind} {label} {action}{_detail(action, row, body)}"
    return RehearsalChange(
        at=datetime.now(BERLIN),
        action=action,
        object_name=name,
        object_id=key[1] if key is not None else None,
        number=number,
        summary=summary,
        method=method,
        path=path,
    )


def _export_job(method: str, path: str, touched: Touched) -> RehearsalChange:
    """:returns: the change of a DATEV export job that enshrines: the job, not the rows."""
    count = len(touched.keys())
    return RehearsalChange(
        at=datetime.now(BERLIN),
        action="enshrined",
        object_name="ExportJob",
        object_id=None,
        number=None,
        summary=f"DATEV export job started; {count} records of its period enshrined",
        method=method,
        path=path,
    )


def _no_record(action: str) -> str:
    return "file" if action == "uploaded" else "(no record)"


def _find(store: Store, key: Key | None) -> Row | None:
    if key is None:
        return None
    table = table_of(store, key[0])
    return table.find(key[1]) if table is not None else None


def _action(  # noqa: PLR0913 - one answer per kind of request
    method: str,
    last: str,
    body: Mapping[str, object],
    *,
    row: Row | None,
    created: bool,
    was_draft: bool,
) -> str:
    if method == "DELETE":
        return "deleted"
    if last in {"sendBy", "getPdf"}:  # a getPdf without preventSendBy marks it sent (Q21)
        return "finalized" if was_draft and not _is_draft(row) else "sent"
    if last in _ACTIONS:
        return _ACTIONS[last]
    if last in _SAVES:
        if (was_draft or created) and _saves_final(body):
            return "finalized"
        return "created" if created else "changed"
    return "created" if method == "POST" else "changed"


def _saves_final(body: Mapping[str, object]) -> bool:
    for key, draft in _DRAFT_OF.items():
        inner = body.get(key)
        if isinstance(inner, dict) and "status" in inner:
            return str(inner["status"]) != draft
    return False


def draft_status(object_name: str) -> int:
    """:returns: the status of a draft of ``object_name`` (a receipt's is 50, others' 100)."""
    return 50 if object_name == "Voucher" else 100


def _is_draft(row: Row | None) -> bool:
    return row is not None and getattr(row, "status", None) == draft_status(row.OBJECT_NAME)


def _number(row: Row | None) -> str | None:
    if isinstance(row, DocBase):
        return row.number
    if isinstance(row, Voucher):
        return row.description
    return None


def _detail(action: str, row: Row | None, body: Mapping[str, object]) -> str:
    if action == "booked" and isinstance(body.get("amount"), str | int | float):
        amount = Decimal(str(body["amount"])).copy_abs()
        return f" ({euros(amount, _currency(row))} booked)"
    gross = (
        f" ({euros(row.sumGross, row.currency)} gross)"
        if isinstance(row, DocBase | Voucher)
        else ""
    )
    return gross + (SIMULATED if action == "sent" else "")


def _currency(row: Row | None) -> str:
    return row.currency if isinstance(row, DocBase | Voucher) else "EUR"


def euros(amount: Decimal, currency: str) -> str:
    """:returns: ``amount`` as ``1,190.00 EUR``."""
    return f"{amount:,.2f} {currency}"

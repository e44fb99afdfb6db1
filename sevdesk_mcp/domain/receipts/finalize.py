"""Finalizing a receipt draft: ``saveVoucher`` with the draft's id, status 100 and every one of
its positions (sevDesk sums only the positions of the call), ``docs/sevdesk-api.md`` §2.7, §3.1.

Before anything is sent every position is checked again (a draft takes any combination; it may
have been changed in sevDesk): against the receipt guidance on bookkeeping 2.0, against the
receipt's tax type and the accounting types on 1.0 (:mod:`.booking`). The preview shows the
receipt in full, with the name, size and SHA-256 of its file as sevDesk holds it (read back,
:mod:`.attached`): the approval binds the file, and a file replaced afterwards voids it.
The step is binding: the receipt enters the books as open (offen); it changes again
only after a reset to draft, and never once festgeschrieben.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.documents.lifecycle import (
    VoucherWritten,
    read_voucher,
    send_once,
    voucher_written,
)
from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.attached import AttachedFile, attached_of, preview_facts
from sevdesk_mcp.domain.receipts.booking import Account, Booking, Treatment, booking
from sevdesk_mcp.domain.receipts.drafts import (
    KIND_WORDS,
    NOT_DRAFT,
    SAVE_PATH,
    draft_voucher,
    position_body,
    positions_table,
    total_said,
)
from sevdesk_mcp.domain.receipts.foreign import Receipt, Row, buyer_notes
from sevdesk_mcp.domain.receipts.guidance import ReceiptKind
from sevdesk_mcp.domain.receipts.lines import ReceiptLine
from sevdesk_mcp.domain.receipts.vouchers import MAX_POSITIONS
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.domain.writes import Prepared, Progress, ref
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.safety.preview import NONE, Day, Preview, Said, Table, fact, quoted, say
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import QueryValue
from sevdesk_mcp.sevdesk.together import both
from sevdesk_mcp.sevdesk.wire_finance import VoucherPos

OPEN: Final = 100
NO_FILE: Final = Said(
    "No receipt file is attached to this receipt.", "An diesem Beleg hängt keine Belegdatei."
)
FINAL: Final = Said(
    "It cannot be changed or deleted any more; only a reset to draft reopens it, and once it is "
    "festgeschrieben (enshrined) nothing does.",
    "Danach lässt er sich nicht mehr ändern oder löschen; nur ein Zurücksetzen auf Entwurf "
    "öffnet ihn wieder, nach dem Festschreiben nichts mehr.",
)
_KINDS: Final[dict[str, ReceiptKind]] = {"C": "expense", "D": "revenue"}


class Head(msgspec.Struct, frozen=True):
    """The header fields of a receipt that its finalize sends again."""

    id: int
    voucherDate: dt.datetime | None = None
    deliveryDate: dt.datetime | None = None
    paymentDeadline: dt.datetime | None = None
    supplier: wire.Ref | None = None
    supplierName: str | None = None
    description: str | None = None
    creditDebit: str | None = None
    voucherType: str | None = None
    taxRule: wire.Ref | None = None
    taxType: str | None = None
    currency: str | None = None
    document: wire.Ref | None = None


class FinalizePlan(msgspec.Struct, frozen=True):
    """The one ``saveVoucher`` that finalizes ``voucher_id``."""

    voucher_id: int
    body: JsonObject


async def prepare_finalize(client: SevdeskPort, voucher_id: int) -> Prepared[FinalizePlan]:
    """Check a receipt draft and plan its finalize (reads only).

    :returns: the preview (irreversible, with the attached file's name, size and SHA-256)
        and the plan.
    :raises PreconditionError: if it is no draft, has no positions, or a position's account,
        tax rule and rate are not allowed by the guidance (2.0), or its accounting type, tax
        type and rate not by bookkeeping 1.0; if its file cannot be read back.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    await draft_voucher(client, voucher_id)
    query: dict[str, QueryValue] = {"voucher[id]": voucher_id, "voucher[objectName]": "Voucher"}
    raw, page, version = await both(
        lambda: read_raw(client, "Voucher", voucher_id),
        lambda: client.get_all("/VoucherPos", query, max_items=MAX_POSITIONS),
        client.system_version,
    )
    head = wire.parse(raw, Head)
    record = f"Beleg (receipt) {voucher_id}"
    kind = _KINDS.get(head.creditDebit or "", "expense")
    book = await booking(client, version, _treatment(head, kind, version), record)
    attached = await attached_of(client, head.document, record)
    rows = [p for p in wire.parse_all(page.items, VoucherPos) if _of(p, voucher_id)]
    if not rows:
        raise PreconditionError(
            f"Beleg (receipt) draft {voucher_id} has no positions; add them by updating the "
            "draft before finalizing it.",
            record=record,
        )
    positions, shown, accounts = _checked(book, rows)
    body: JsonObject = {
        "voucher": _head_body(head, kind, book),
        "voucherPosSave": positions,
        "voucherPosDelete": None,
    }
    preview = _preview(head, shown, rows, attached, book)
    if version == "2.0" and kind == "expense" and head.taxRule:
        notes = await buyer_notes(client, _receipt(head, head.taxRule.id, rows, accounts))
        facts, warnings = [*preview.facts, *notes.facts], [*notes.warnings, *preview.warnings]
        preview = msgspec.structs.replace(preview, facts=facts, warnings=warnings)
    return Prepared(preview, FinalizePlan(voucher_id, body))


def _receipt(head: Head, rule: int, rows: list[VoucherPos], accounts: list[Account]) -> Receipt:
    return Receipt(
        rule=rule,
        supplier_id=head.supplier.id if head.supplier else None,
        party=head.supplierName or "",
        number=head.description,
        rows=[
            Row(net=_line(p).net, tax=_line(p).tax, rate=_line(p).tax_rate, text=p.comment,
                account_id=a.id, account_number=a.number)
            for p, a in zip(rows, accounts, strict=True)
        ],
    )  # fmt: skip


async def execute_finalize(
    client: SevdeskPort, plan: FinalizePlan, progress: Progress
) -> VoucherWritten:
    """Send the finalize once and read the receipt back.

    :returns: the receipt as sevDesk holds it.
    :raises PreconditionError: if sevDesk says it is no draft any more (code 90400).
    :raises UpstreamError: if the write or the read-back fails.
    """
    where = f"Beleg (receipt) {plan.voucher_id}"
    await send_once(client, "POST", SAVE_PATH, codes=NOT_DRAFT, where=where, json=plan.body)
    progress.done(f"finalized receipt {plan.voucher_id}")
    voucher = await read_voucher(client, plan.voucher_id)
    return voucher_written(voucher, [f"finalized receipt {plan.voucher_id} (status open)"])


def _checked(book: Booking, rows: list[VoucherPos]) -> tuple[list[JsonValue], Table, list[Account]]:
    """:returns: the positions to send again, their preview table and their accounts.

    :raises PreconditionError: for a position its bookkeeping version does not allow.
    """
    positions: list[JsonValue] = []
    booked: list[tuple[Account, ReceiptLine]] = []
    for index, pos in enumerate(rows, start=1):
        line = _line(pos)
        account = book.for_position(f"Position {index}", pos, line.tax_rate)
        booked.append((account, line))
        positions.append(position_body(account.id, line, pos.id, model=book.model))
    return positions, positions_table(booked), [account for account, _ in booked]


def _of(position: VoucherPos, voucher_id: int) -> bool:
    return position.voucher is not None and position.voucher.id == voucher_id  # Q12


def _line(pos: VoucherPos) -> ReceiptLine:
    net = pos.sumNet or ZERO
    gross = pos.sumGross if pos.sumGross is not None else net + (pos.sumTax or ZERO)
    return ReceiptLine("", pos.taxRate or Decimal(0), net, gross, pos.comment)


def _treatment(head: Head, kind: ReceiptKind, version: str) -> Treatment:
    """:returns: the stored tax rule (2.0, 0 when missing) or tax type (1.0, "" when missing);
    a missing one is refused by the checks, never replaced by a default."""
    if version == "2.0":
        return Treatment(kind, tax_rule_id=head.taxRule.id if head.taxRule else 0)
    return Treatment(kind, tax_type=head.taxType or "")


def _head_body(head: Head, kind: ReceiptKind, book: Booking) -> JsonObject:
    body: JsonObject = {
        "objectName": "Voucher",
        "mapAll": True,
        "id": head.id,
        "status": OPEN,
        "creditDebit": "C" if kind == "expense" else "D",
        "voucherType": head.voucherType or "VOU",
        book.tax[0]: book.tax[1],
        "currency": head.currency or "EUR",
        "description": head.description,
    }
    for name in ("voucherDate", "deliveryDate", "paymentDeadline"):
        day = dates.berlin_date(getattr(head, name))
        if day is not None:
            body[name] = dates.dotted(day)
    if head.supplier is not None:
        body["supplier"] = ref(head.supplier.id, "Contact")
    elif head.supplierName:
        body["supplierName"] = head.supplierName
    return body


def _preview(
    head: Head,
    shown: Table,
    rows: list[VoucherPos],
    attached: AttachedFile | None,
    book: Booking,
) -> Preview:
    kind = _KINDS.get(head.creditDebit or "", "expense")
    net = sum((p.sumNet or ZERO for p in rows), ZERO)
    gross = sum((_line(p).gross for p in rows), ZERO)
    day = dates.berlin_date(head.voucherDate)
    facts = [
        fact("Supplier", "Lieferant", _supplier(head)),
        fact("Kind", "Art", KIND_WORDS[kind]),
        fact("Receipt number", "Belegnummer", quoted(head.description)),
        fact("Date", "Belegdatum", Day(day) if day else NONE),
        book.tax_fact,
        fact("Positions", "Positionen", shown),
        fact("Total", "Summe", total_said(net, gross - net, gross)),
        *preview_facts(attached),
    ]
    warnings = [*book.warnings]
    if attached is None:
        warnings.append(
            say(
                "No receipt file is attached to this receipt.",
                "An diesem Beleg hängt keine Belegdatei.",
            )
        )
    action = say(
        "Finalize receipt {0}: it enters the books as open (status 100) and counts for the tax "
        "return.",
        "Beleg {0} abschließen: Er geht als offen (Status 100) in die Buchhaltung ein und zählt "
        "für die Umsatzsteuer.",
        head.id,
    )
    warnings.append(FINAL)
    return Preview(action=action, facts=facts, warnings=warnings, irreversible=True)


def _supplier(head: Head) -> Said:
    """:returns: the supplier as the finalize preview names it: its name (quoted) and contact."""
    if head.supplier is None:
        return say("{0}", "{0}", quoted(head.supplierName))
    return say("{0} (contact {1})", "{0} (Kontakt {1})", quoted(head.supplierName),
               head.supplier.id)  # fmt: skip

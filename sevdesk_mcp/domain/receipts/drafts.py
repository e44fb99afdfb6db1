"""Receipt drafts (``POST /Voucher/Factory/saveVoucher`` with status 50, ``DELETE /Voucher/{id}``,
``docs/sevdesk-api.md`` §2.7, §5.3, Q16, Q25, Q39).

``prepare_*`` only reads: the bookkeeping version (2.0: ``accountDatev`` and a tax rule,
checked against the receipt guidance; 1.0: ``accountingType`` and a tax type, :mod:`.booking`),
the supplier, every position, the sums to the cent, and look-alike
receipts (same supplier and receipt number, or same supplier, date and gross). It builds the
exact body. ``execute_*`` sends it once (Q33) and reads the receipt back, with the file it got
from ``filename`` (checked against the upload's SHA-256 when the caller gives it). An update
replaces every position (sevDesk sums only the positions of the call); only drafts change (code
90400, and 159 for a delete).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.documents.lifecycle import (
    VoucherState,
    VoucherWritten,
    read_voucher,
    send_once,
    voucher_written,
)
from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.errors import Said as Told
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts import vouchers
from sevdesk_mcp.domain.receipts.attached import saved_file_line
from sevdesk_mcp.domain.receipts.booking import (
    DEFAULT_TAX_RULE,
    Account,
    Booking,
    Treatment,
    booking,
)
from sevdesk_mcp.domain.receipts.foreign import Receipt, Row, buyer_notes
from sevdesk_mcp.domain.receipts.guidance import ReceiptKind
from sevdesk_mcp.domain.receipts.lines import ReceiptLine, checked_lines, totals
from sevdesk_mcp.domain.receipts.suppliers import Supplier, SupplierQuery, find_supplier
from sevdesk_mcp.domain.writes import Prepared, Progress, ref
from sevdesk_mcp.errors import MalformedResponseError, ToolError, ToolInputError
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.safety.preview import (
    Day,
    Fact,
    Plain,
    Preview,
    Said,
    Table,
    amount,
    fact,
    percent,
    quoted,
    say,
)
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.paths import QueryValue, api_path
from sevdesk_mcp.sevdesk.together import both
from sevdesk_mcp.sevdesk.wire_finance import Voucher, VoucherPos

SAVE_PATH: Final = "/Voucher/Factory/saveVoucher"
ACCOUNT_FIELDS: Final = {"AccountDatev": "accountDatev", "AccountingType": "accountingType"}
DRAFT: Final = 50
CREDIT_DEBIT: Final = {"expense": "C", "revenue": "D"}
KIND_WORDS: Final = {
    "expense": Said("expense", "Ausgabe"),
    "revenue": Said("revenue", "Einnahme"),
}
DELETE_AGAIN: Final = Said(
    "Way back: delete the draft again (delete the receipt draft).",
    "Rückweg: den Entwurf wieder löschen (Belegentwurf löschen).",
)
POSITION_COLUMNS: Final = (
    Said("No.", "Nr."),
    Said("Booking account", "Buchungskonto"),
    Said("VAT rate", "USt-Satz"),
    Said("Net", "Netto"),
    Said("VAT", "USt"),
    Said("Gross", "Brutto"),
    Said("Text", "Text"),
)
NOT_DRAFT: Final[dict[int, str | Told]] = {
    90400: (
        "the receipt is no longer a draft (finalized meanwhile), so it cannot be changed. Read "
        "it again with ",
        Action.READ_DOCUMENT,
        "; a finalized receipt changes only after a reset to draft.",
    ),
    159: (
        "the receipt is no longer a draft, so it cannot be deleted. Read it again with ",
        Action.READ_DOCUMENT,
        ".",
    ),
}


class ReceiptDraft(msgspec.Struct, frozen=True):
    """The content of a receipt draft."""

    kind: ReceiptKind
    day: dt.date
    receipt_number: str | None
    supplier: SupplierQuery
    tax_rule_id: int | None
    lines: list[ReceiptLine]
    file: str | None = None
    delivery_date: dt.date | None = None
    payment_deadline: dt.date | None = None
    allow_duplicate: bool = False
    file_sha256: str | None = None
    tax_type: str | None = None


class ReceiptPlan(msgspec.Struct, frozen=True):
    """What ``execute`` sends: the ``saveVoucher`` body (or a delete of ``voucher_id``), and the
    SHA-256 the attached file must have on read-back (``None``: not checked)."""

    voucher_id: int | None
    body: JsonObject
    file_sha256: str | None = None


async def prepare_create(client: SevdeskPort, draft: ReceiptDraft) -> Prepared[ReceiptPlan]:
    """Check a new receipt draft and plan its creation (reads only).

    :returns: the preview and the plan.
    :raises ToolInputError: for inconsistent sums or a missing supplier.
    :raises PreconditionError: for a combination the guidance (2.0) or bookkeeping 1.0 refuses,
        a tax field of the other version, an ambiguous or unknown supplier, or a look-alike
        receipt.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    built = await _body(client, draft, None)
    if not draft.allow_duplicate:
        await refuse_lookalike(client, draft, built.supplier)
    action = say(
        "Create a receipt draft in sevDesk; it can still be changed or deleted.",
        "Einen Belegentwurf in sevDesk anlegen; er lässt sich danach noch ändern oder löschen.",
    )
    plan = ReceiptPlan(None, built.body, _pinned(draft))
    preview = msgspec.structs.replace(built.preview(action), undo=DELETE_AGAIN)
    return Prepared(preview, plan)


async def prepare_update(
    client: SevdeskPort, voucher_id: int, draft: ReceiptDraft
) -> Prepared[ReceiptPlan]:
    """Plan replacing a draft's header and every position with ``draft`` (reads only).

    :returns: the preview (the new state in full) and the plan.
    :raises PreconditionError: if the receipt is no draft, or as :func:`prepare_create`.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    await draft_voucher(client, voucher_id)
    built = await _body(client, draft, voucher_id)
    old = await position_ids(client, voucher_id)
    built.body["voucherPosDelete"] = [ref(i, "VoucherPos") for i in old] or None
    built.facts.append(fact("Positions replaced", "Ersetzte Positionen", len(old)))
    action = say(
        "Change receipt draft {0}: every field and every position as below.",
        "Belegentwurf {0} ändern: alle Felder und alle Positionen wie unten.",
        voucher_id,
    )
    plan = ReceiptPlan(voucher_id, built.body, _pinned(draft))
    return Prepared(built.preview(action), plan)


async def execute_save(
    client: SevdeskPort, plan: ReceiptPlan, progress: Progress
) -> VoucherWritten:
    """Send the planned ``saveVoucher`` once and read the receipt back.

    :returns: the receipt as sevDesk holds it (with its new file, when one was given).
    :raises PreconditionError: if sevDesk says the receipt is no draft (code 90400); if the
        file sevDesk attached is not the one of the planned SHA-256 (the draft is saved).
    :raises UpstreamError: if the write or the read-back fails.
    """
    where = f"Beleg (receipt) {plan.voucher_id}" if plan.voucher_id else "the newest receipts"
    answer = await send_once(
        client, "POST", SAVE_PATH, codes=NOT_DRAFT, where=where, json=plan.body
    )
    ident = _saved_id(answer)
    verb = "changed" if plan.voucher_id else "created"
    progress.done(f"{verb} receipt draft {ident}")
    written = [f"{verb} receipt draft {ident}"]
    if plan.body.get("filename"):
        written.append(await saved_file_line(client, ident, plan.file_sha256))
    voucher = await read_voucher(client, ident)
    return voucher_written(voucher, written)


async def prepare_delete(client: SevdeskPort, voucher_id: int) -> Prepared[ReceiptPlan]:
    """Plan deleting a receipt draft (reads only).

    :returns: the preview and the plan.
    :raises PreconditionError: if the receipt is no draft (sevDesk answers 409, code 159).
    :raises UpstreamError: if sevDesk cannot be read.
    """
    voucher = await draft_voucher(client, voucher_id)
    facts = [
        fact("Receipt", "Beleg", say("draft {0}", "Entwurf {0}", voucher_id)),
        fact("Supplier", "Lieferant", quoted(voucher.supplierName or voucher.supplierNameAtSave)),
        fact("Receipt number", "Belegnummer", quoted(voucher.description)),
        fact("Gross", "Brutto", amount(voucher.sumGross, voucher.currency)),
    ]
    action = say(
        "Delete receipt draft {0} from sevDesk.", "Belegentwurf {0} in sevDesk löschen.", voucher_id
    )
    preview = Preview(action=action, facts=facts, irreversible=True)
    return Prepared(preview, ReceiptPlan(voucher_id, {}))


async def execute_delete(
    client: SevdeskPort, plan: ReceiptPlan, progress: Progress
) -> VoucherWritten:
    """Delete the draft (once) and report it.

    :returns: the receipt as it was, with what was done.
    :raises PreconditionError: if sevDesk says it is no draft (code 159).
    :raises UpstreamError: if the delete fails.
    """
    assert plan.voucher_id is not None  # a delete plan names its receipt
    before = await read_voucher(client, plan.voucher_id)
    path = api_path("Voucher", plan.voucher_id)
    where = f"Beleg (receipt) {plan.voucher_id}"
    await send_once(client, "DELETE", path, codes=NOT_DRAFT, where=where)
    progress.done(f"deleted receipt draft {plan.voucher_id}")
    return voucher_written(before, [f"deleted receipt draft {plan.voucher_id}"])


async def draft_voucher(client: SevdeskPort, voucher_id: int) -> VoucherState:
    """:returns: the receipt, if it is a draft that is not festgeschrieben.

    :raises PreconditionError: if it is not a draft, naming its status and what to do instead.
    :raises NotFoundError: if there is no such receipt.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    voucher = await read_voucher(client, voucher_id)
    if voucher.status != DRAFT or voucher.enshrined is not None:
        raise PreconditionError(
            f"Beleg (receipt) {voucher_id} is no draft (status {voucher.status}"
            f"{', festgeschrieben' if voucher.enshrined else ''}); only drafts can be changed "
            "or deleted. Reset an open receipt to draft first with ",
            Action.RESET_TO_OPEN,
            " (to=draft).",
            record=f"Beleg (receipt) {voucher_id}",
        )
    return voucher


async def position_ids(client: SevdeskPort, voucher_id: int) -> list[int]:
    """:returns: the ids of the receipt's positions (the filter checked again, Q12).

    :raises UpstreamError: if sevDesk cannot be read.
    """
    query: dict[str, QueryValue] = {"voucher[id]": voucher_id, "voucher[objectName]": "Voucher"}
    page = await client.get_all("/VoucherPos", query, max_items=vouchers.MAX_POSITIONS)
    rows = wire.parse_all(page.items, VoucherPos)
    return [p.id for p in rows if p.voucher is not None and p.voucher.id == voucher_id]


class _Built(msgspec.Struct, frozen=True):
    """A checked draft: the save's body, the preview's facts and warnings, the supplier."""

    body: JsonObject
    facts: list[Fact]
    warnings: list[Said]
    supplier: Supplier

    def preview(self, action: Said) -> Preview:
        """:returns: the preview of ``action`` with these facts and warnings."""
        return Preview(action=action, facts=self.facts, warnings=self.warnings)


async def _body(client: SevdeskPort, draft: ReceiptDraft, voucher_id: int | None) -> _Built:
    version = await client.system_version()
    lines = checked_lines(draft.lines)
    supplier = await find_supplier(client, draft.supplier)
    wanted = Treatment(draft.kind, draft.tax_rule_id, draft.tax_type)
    book = await booking(client, version, wanted)
    positions: list[JsonValue] = []
    booked: list[tuple[Account, ReceiptLine]] = []
    rows: list[Row] = []
    for index, line in enumerate(lines, start=1):
        account = await book.for_number(f"Position {index}", line.account_number, line.tax_rate)
        positions.append(position_body(account.id, line, model=book.model))
        rows.append(_row(line, account))
        booked.append((account, line))
    body: JsonObject = {
        "voucher": voucher_head(draft, supplier, voucher_id, book),
        "voucherPosSave": positions,
        "voucherPosDelete": None,
        "filename": draft.file,
    }
    net, tax, gross = totals(lines)
    facts = [
        fact("Supplier", "Lieferant", supplier.said()),
        fact("Kind", "Art", KIND_WORDS[draft.kind]),
        fact("Receipt number", "Belegnummer", quoted(draft.receipt_number)),
        fact("Date", "Belegdatum", Day(draft.day)),
        book.tax_fact,
        fact("Positions", "Positionen", positions_table(booked)),
        fact("Total", "Summe", total_said(net, tax, gross)),
        fact("File", "Datei", _file_said(draft)),
    ]
    built = _Built(body, facts, list(book.warnings), supplier)
    if version != "2.0" or draft.kind != "expense":
        return built
    rule = DEFAULT_TAX_RULE if draft.tax_rule_id is None else draft.tax_rule_id
    receipt = Receipt(
        rule=rule,
        supplier_id=supplier.contact_id,
        party=supplier.name,
        number=draft.receipt_number,
        rows=rows,
    )
    notes = await buyer_notes(client, receipt)
    return msgspec.structs.replace(
        built, facts=[*built.facts, *notes.facts], warnings=[*notes.warnings, *built.warnings]
    )


def _row(line: ReceiptLine, account: Account) -> Row:
    return Row(
        net=line.net,
        tax=line.tax,
        rate=line.tax_rate,
        text=line.text,
        account_id=account.id,
        account_number=account.number,
    )


def _pinned(draft: ReceiptDraft) -> str | None:
    """:returns: the SHA-256 the attached file must have, lower case.

    :raises ToolInputError: for a SHA-256 without a file.
    """
    if draft.file_sha256 is None:
        return None
    if draft.file is None:
        raise ToolInputError(
            "file_sha256 was given without file: give the filename that the upload returned "
            "together with its SHA-256, or leave both out."
        )
    return draft.file_sha256.strip().lower()


def positions_table(booked: list[tuple[Account, ReceiptLine]]) -> Table:
    """:returns: a receipt's positions as a preview shows them: account, rate, the three sums
    and the text (quoted: the caller's or sevDesk's words)."""
    rows = tuple(
        (
            Plain(str(index)),
            account.label,
            percent(line.tax_rate),
            amount(line.net),
            amount(line.tax),
            amount(line.gross),
            quoted(line.text),
        )
        for index, (account, line) in enumerate(booked, start=1)
    )
    return Table(POSITION_COLUMNS, rows, right=(0, 2, 3, 4, 5))


def total_said(net: Decimal, tax: Decimal, gross: Decimal) -> Said:
    """:returns: a receipt's sums in words."""
    return say(
        "net {0} + VAT {1} = gross {2}",
        "netto {0} + USt {1} = brutto {2}",
        amount(net),
        amount(tax),
        amount(gross),
    )


def _file_said(draft: ReceiptDraft) -> Said:
    if draft.file is None:
        return say("(none: a receipt without its file)", "(keine: ein Beleg ohne seine Datei)")
    name = quoted(draft.file)
    if draft.file_sha256 is None:
        return say(
            "{0} (uploaded file; SHA-256 not given, so not checked)",
            "{0} (hochgeladene Datei; SHA-256 nicht angegeben, daher nicht geprüft)",
            name,
        )
    return say(
        "{0}, SHA-256 {1} (checked after saving)",
        "{0}, SHA-256 {1} (wird nach dem Speichern geprüft)",
        name,
        draft.file_sha256.strip().lower(),
    )


def voucher_head(
    draft: ReceiptDraft, supplier: Supplier, voucher_id: int | None, book: Booking
) -> JsonObject:
    """:returns: the ``voucher`` object of the save (status 50), with the tax rule (2.0) or
    tax type (1.0) of ``book``."""
    head: JsonObject = {
        "objectName": "Voucher",
        "mapAll": True,
        "voucherDate": dates.dotted(draft.day),
        "deliveryDate": dates.dotted(draft.delivery_date or draft.day),
        "description": draft.receipt_number,
        "status": DRAFT,
        "creditDebit": CREDIT_DEBIT[draft.kind],
        "voucherType": "VOU",
        book.tax[0]: book.tax[1],
        "currency": "EUR",
    }
    if voucher_id is not None:
        head["id"] = voucher_id
    if supplier.contact_id is not None:
        head["supplier"] = ref(supplier.contact_id, "Contact")
    else:
        head["supplierName"] = supplier.name
    if draft.payment_deadline is not None:
        head["paymentDeadline"] = dates.dotted(draft.payment_deadline)
    return head


def position_body(
    account_id: int, line: ReceiptLine, position_id: int | None = None, *, model: str
) -> JsonObject:
    """:returns: one ``voucherPosSave`` entry with all three sums (Q16); the account is
    ``accountDatev`` (2.0) or ``accountingType`` (1.0), after ``model``."""
    body: JsonObject = {
        "objectName": "VoucherPos",
        "mapAll": True,
        ACCOUNT_FIELDS[model]: ref(account_id, model),
        "taxRate": f"{line.tax_rate:f}",
        "net": True,
        "sumNet": f"{line.net:f}",
        "sumTax": f"{line.tax:f}",
        "sumGross": f"{line.gross:f}",
        "comment": line.text,
    }
    if position_id is not None:
        body["id"] = position_id
    return body


async def refuse_lookalike(client: SevdeskPort, draft: ReceiptDraft, supplier: Supplier) -> None:
    """:raises ToolError: if a receipt of the same supplier has the same receipt number, or the
    same date and gross."""
    gross = totals(draft.lines)[2]
    day_query: dict[str, QueryValue] = {
        "startDate": vouchers.start_bound(draft.day),
        "endDate": dates.unix_end(draft.day),
    }
    number_query: dict[str, QueryValue] = {"descriptionLike": draft.receipt_number or ""}
    (same_day, _), (same_number, _) = await both(
        lambda: vouchers.read_vouchers(client, day_query),
        lambda: vouchers.read_vouchers(client, number_query) if draft.receipt_number else _none(),
    )
    for read in same_number:
        v = read.voucher
        if _same_supplier(v, supplier) and _same_text(v.description, draft.receipt_number):
            _lookalike(v.id, "the same supplier and receipt number")
    for read in same_day:
        v = read.voucher
        day = dates.berlin_date(v.voucherDate)
        if _same_supplier(v, supplier) and day == draft.day and v.sumGross == gross:
            _lookalike(v.id, "the same supplier, date and gross")


async def _none() -> tuple[list[vouchers.Read], bool]:
    return [], False


def _lookalike(voucher_id: int, what: str) -> None:
    raise ToolError(
        f"Beleg (receipt) {voucher_id} already has {what}; this looks like the same receipt. "
        "Read it first; if this really is another receipt, call again with "
        "allow_duplicate=true."
    )


def _same_supplier(voucher: Voucher, supplier: Supplier) -> bool:
    if supplier.contact_id is not None and voucher.supplier is not None:
        return voucher.supplier.id == supplier.contact_id
    return _same_text(vouchers.supplier_name(voucher), supplier.name)


def _same_text(a: str | None, b: str | None) -> bool:
    return (
        bool(a and b)
        and " ".join((a or "").split()).casefold() == " ".join((b or "").split()).casefold()
    )


def _saved_id(answer: JsonValue) -> int:
    saved = answer.get("voucher") if isinstance(answer, dict) else None
    if not isinstance(saved, dict):
        raise MalformedResponseError(
            "sevDesk answered the save without the voucher; look for the receipt in sevDesk "
            "before trying again."
        )
    return wire.parse(saved, _Id).id


class _Id(msgspec.Struct, frozen=True):
    id: int

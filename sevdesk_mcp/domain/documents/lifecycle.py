"""What the commit-tier lifecycle of invoices, credit notes and receipts shares: one view of the
document a payment or a reset acts on (:class:`Target`), the read-back of a receipt, and
sending one write with the known error codes mapped (``docs/sevdesk-api.md`` §2.4-§2.8,
§5.7).

sevDesk's own error text is never shown unfenced; the messages here say what was wrong and how
to fix it. A write whose answer did not arrive is reported as an unknown outcome that names the
document to look at, and is never retried (Q33).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.contacts.read import Untrusted, display_name
from sevdesk_mcp.domain.documents.writes import (
    DocumentWritten,
    label,
    named,
    read_back,
    read_document,
    sent_once,
)
from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.errors import Said as Message
from sevdesk_mcp.domain.lifecycle_table import open_statuses, word
from sevdesk_mcp.domain.money import ZERO, Money, money, shown
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import find_one, read_one
from sevdesk_mcp.errors import RejectedError
from sevdesk_mcp.jsontypes import JsonObject, JsonValue
from sevdesk_mcp.safety.fence import fence
from sevdesk_mcp.safety.preview import Piece, Said, quoted, say
from sevdesk_mcp.sevdesk import dates, wire

TargetKind = Literal["invoice", "credit_note", "voucher"]
MODELS: Final[dict[str, str]] = {
    "invoice": "Invoice",
    "credit_note": "CreditNote",
    "voucher": "Voucher",
}
VOUCHER_KINDS: Final = {"C": "expense", "D": "revenue"}


class VoucherState(msgspec.Struct, frozen=True):
    """The fields of a receipt that its lifecycle needs (the read tools' schema has no
    ``enshrined``)."""

    id: int
    status: int | None = None
    voucherDate: dt.datetime | None = None
    supplierName: str | None = None
    supplierNameAtSave: str | None = None
    description: str | None = None
    currency: str | None = None
    sumGross: Decimal | None = None
    paidAmount: Decimal | None = None
    creditDebit: str | None = None
    enshrined: dt.datetime | None = None


class Target(msgspec.Struct, frozen=True):
    """An invoice, credit note or receipt as a payment or a reset sees it.

    :param label: e.g. ``Rechnung (invoice) RE-1042`` or ``Beleg (receipt) 800026 (…)``.
    :param contact: the customer or supplier, fenced.
    :param type: ``RE``, ``SR`` … for invoices; ``None`` otherwise.
    :param named: the document for a preview, in both languages.
    :param party: the customer or supplier for a preview (quoted), or "none".
    """

    kind: TargetKind
    id: int
    label: str
    status: int | None
    status_word: str
    gross: Decimal
    paid: Decimal
    currency: str
    credit_debit: str | None
    date: dt.date | None
    contact: str | None
    contact_id: int | None
    type: str | None
    enshrined: bool
    named: Said
    party: Piece

    @property
    def model(self) -> str:
        """:returns: the API word: ``Invoice``, ``CreditNote`` or ``Voucher``."""
        return MODELS[self.kind]

    @property
    def open_amount(self) -> Decimal:
        """:returns: gross minus what is paid (positive amounts, as sevDesk keeps them)."""
        return self.gross - self.paid

    def euros(self, amount: Decimal) -> str:
        """:returns: ``amount`` in cents with the document's currency."""
        return shown(amount, self.currency)

    def where(self) -> str:
        """:returns: the document to look at in sevDesk, by label and id."""
        return f"{self.label} (id {self.id})"


class VoucherWritten(msgspec.Struct, frozen=True, kw_only=True):
    """A receipt as sevDesk holds it after a write (read back), and what the write did."""

    id: int
    kind: str
    status: str
    date: dt.date | None
    supplier: Untrusted | None
    receipt_number: Untrusted | None
    gross: Money
    paid: Money
    open: Money
    enshrined: bool
    written: list[str]


class Written(msgspec.Struct, frozen=True, kw_only=True):
    """The document after the write: ``document`` for an invoice or credit note, ``voucher`` for
    a receipt (the other one is ``null``)."""

    document: DocumentWritten | None = None
    voucher: VoucherWritten | None = None


async def read_target(client: SevdeskPort, kind: TargetKind, ident: int) -> Target:
    """:returns: the invoice, credit note or receipt ``ident``.

    :raises NotFoundError: if there is none.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    if kind == "voucher":
        return _voucher_target(await read_voucher(client, ident))
    doc = await read_document(client, kind, ident)
    shown = await _display_name(client, doc.contact.id) if doc.contact else None
    contact = fence(shown) if shown is not None else None
    return Target(
        kind=kind,
        id=doc.id,
        label=label(kind, doc),
        status=doc.status,
        status_word=word(kind, doc.status),
        gross=doc.sumGross or ZERO,
        paid=doc.paidAmount or ZERO,
        currency=(doc.currency or "EUR").upper(),
        credit_debit=None,
        date=dates.berlin_date(doc.date()),
        contact=contact,
        contact_id=doc.contact.id if doc.contact else None,
        type=doc.type(),
        enshrined=doc.enshrined is not None,
        named=named(kind, doc),
        party=quoted(shown),
    )


async def read_voucher(client: SevdeskPort, ident: int) -> VoucherState:
    """:returns: the receipt ``ident``.

    :raises NotFoundError: if there is none.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    return await read_one(client, "Voucher", ident, VoucherState)


async def read_back_target(
    client: SevdeskPort, kind: TargetKind, ident: int, written: list[str]
) -> Written:
    """Read the document after a write.

    :returns: the document as sevDesk now holds it, with ``written``.
    :raises NotFoundError: if it is gone.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    if kind == "voucher":
        return Written(voucher=voucher_written(await read_voucher(client, ident), written))
    return Written(document=await read_back(client, kind, ident, written))


def voucher_written(voucher: VoucherState, written: list[str]) -> VoucherWritten:
    """:returns: the result DTO of a receipt, supplier and receipt number fenced."""
    target = _voucher_target(voucher)
    open_amount = target.open_amount if voucher.status in open_statuses("voucher") else ZERO
    return VoucherWritten(
        id=voucher.id,
        kind=VOUCHER_KINDS.get(voucher.creditDebit or "", "unknown"),
        status=target.status_word,
        date=target.date,
        supplier=target.contact,
        receipt_number=fence(voucher.description),
        gross=money(target.gross, target.currency),
        paid=money(target.paid, target.currency),
        open=money(open_amount, target.currency),
        enshrined=target.enshrined,
        written=written,
    )


async def send_once(  # noqa: PLR0913 - the request and what its failures mean
    client: SevdeskPort,
    method: str,
    path: str,
    *,
    codes: Mapping[int, str | Message],
    where: str,
    json: JsonObject | None = None,
) -> JsonValue:
    """Send one write (never retried) and map sevDesk's known error codes.

    :param codes: sevDesk error code → our message (what was wrong and how to fix it).
    :param where: what to look at in sevDesk when the outcome is unknown.
    :returns: the ``objects`` of the answer.
    :raises PreconditionError: for a known error code (also inside HTTP 200, like 390).
    :raises OutcomeUnknownError: if the write was sent and no answer arrived, naming ``where``.
    :raises UpstreamError: for any other failure.
    """
    try:
        return await sent_once(client, method, path, where, json)
    except RejectedError as exc:
        said = codes.get(exc.code) if exc.code is not None else None
        if said is None:
            raise
        parts = (said,) if isinstance(said, str) else said
        refused = f"sevDesk refused (code {exc.code}): "
        raise PreconditionError(refused, *parts, record=where) from None


def _voucher_target(voucher: VoucherState) -> Target:
    supplier = fence(voucher.supplierName or voucher.supplierNameAtSave)
    return Target(
        kind="voucher",
        id=voucher.id,
        label=f"Beleg (receipt) {voucher.id}",  # its number is third-party text: not in errors
        status=voucher.status,
        status_word=word("voucher", voucher.status),
        gross=voucher.sumGross or ZERO,
        paid=voucher.paidAmount or ZERO,
        currency=(voucher.currency or "EUR").upper(),
        credit_debit=voucher.creditDebit,
        date=dates.berlin_date(voucher.voucherDate),
        contact=supplier,
        contact_id=None,
        type=None,
        enshrined=voucher.enshrined is not None,
        named=say("receipt {0}", "Beleg {0}", voucher.id),
        party=quoted(voucher.supplierName or voucher.supplierNameAtSave),
    )


async def _display_name(client: SevdeskPort, contact_id: int) -> str | None:
    contact = await find_one(client, "Contact", contact_id, wire.Contact)
    return display_name(contact) if contact is not None else None

"""The finalize preview's check for a foreign supplier's receipt entered without reverse
charge (bookkeeping 2.0): the same rule the VAT return applies (:mod:`..reports.vat.foreign`),
so the human sees before approving where the receipt belongs."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import msgspec

from sevdesk_mcp.domain.money import ZERO
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.booking import Account
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.domain.reports.books import Books, Line, Record
from sevdesk_mcp.domain.reports.vat.foreign import ORDINARY_RULES, misplaced
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.wire_finance import VoucherPos


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """The facts of a receipt draft the check reads: its tax rule, supplier (a contact or a
    name), number and positions with their checked accounts."""

    rule: int
    supplier_id: int | None
    party: str
    number: str | None
    rows: list[tuple[VoucherPos, Account]]


async def foreign_warning(client: SevdeskPort, receipt: Receipt) -> str | None:
    """:returns: the warning for a receipt at 0 % under an ordinary rule whose supplier or
    text points abroad, where the VAT return would place it; ``None`` otherwise.

    :raises UpstreamError: if the supplier cannot be read.
    """
    zero = [pos for pos, _ in receipt.rows if (pos.sumTax or ZERO) == ZERO]
    if receipt.rule not in ORDINARY_RULES or not zero:
        return None
    contacts = {}
    if receipt.supplier_id is not None:
        raw = await read_raw(client, "Contact", receipt.supplier_id)
        contact = wire.parse(raw, wire.Contact)
        contacts[contact.id] = contact
    accounts = {a.id: wire.AccountDatev(id=a.id, number=a.number) for _, a in receipt.rows}
    books = Books(records=[], contacts=contacts, countries={}, accounts=accounts, truncated=False)
    found = misplaced(books, _record(receipt), deductible=True)
    if found is None:
        return None
    return (
        f"Entered at 0 % under tax rule {receipt.rule}, but {', '.join(found.evidence)}: a "
        f"receipt of a foreign business belongs in boxes {found.boxes} of the VAT return (base "
        f"{found.base}, tax {found.tax} at 19 %; box 67 only if you may deduct input tax). "
        f"Cancel and {found.fix} (reverse charge, §13b UStG), or approve if you know better."
    )


def _record(receipt: Receipt) -> Record:
    lines = tuple(
        Line(pos.sumNet or ZERO, pos.sumTax or ZERO, pos.taxRate or Decimal(0), a.id, pos.comment)
        for pos, a in receipt.rows
    )
    return Record(
        kind="receipt", id=0, number=receipt.number, day=dt.date.min, delivered=None,
        draft=True, revenue=False, rule=receipt.rule, contact_id=receipt.supplier_id,
        country_id=None, currency="EUR", gross=ZERO, own_net=ZERO, own_tax=ZERO, lines=lines,
        party=receipt.party,
    )  # fmt: skip

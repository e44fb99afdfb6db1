"""What the create and finalize previews of a receipt say about VAT owed as a buyer
(bookkeeping 2.0):

- a receipt under reverse charge or as an intra-EU acquisition (tax rules 8, 12, 13, 14): the tax
  the company owes and whether it is deductible ("§13b: you owe 19 % = 57.00 EUR …");
- a foreign supplier's receipt entered at 0 % under an ordinary rule: a warning where the VAT
  return would place it, the rule :mod:`..reports.vat.foreign` applies to the return.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import HUNDRED, ZERO, cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.domain.reports.books import Books, Line, Record
from sevdesk_mcp.domain.reports.vat.foreign import ORDINARY_RULES, misplaced
from sevdesk_mcp.safety.preview import Fact
from sevdesk_mcp.sevdesk import wire

REVERSE_CHARGE_RATE: Final = Decimal(19)  # sevDesk's rules 8, 12-14 say "0% (19%)"
ACQUISITION: Final = 8
# tax rule: (what it is, the box of the tax owed, the box of its deduction or None)
OWED: Final[dict[int, tuple[str, str, str | None]]] = {
    8: ("§1a intra-EU acquisition", "89/93", "61"),
    12: ("§13b reverse charge", "84/85", "67"),
    13: ("§13b reverse charge", "84/85", None),
    14: ("§13b reverse charge (EU service)", "46/47", "67"),
}


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """One position as the checks read it: its sums, text and checked booking account."""

    net: Decimal
    tax: Decimal
    rate: Decimal
    text: str | None
    account_id: int
    account_number: str


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """The facts of a receipt the checks read: its tax rule, supplier (a contact or a name),
    number and positions."""

    rule: int
    supplier_id: int | None
    party: str
    number: str | None
    rows: list[Row]


class BuyerNotes(msgspec.Struct, frozen=True, kw_only=True):
    """What a receipt's preview adds about VAT owed as a buyer: facts, and warnings to put
    first."""

    facts: list[Fact] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


async def buyer_notes(client: SevdeskPort, receipt: Receipt) -> BuyerNotes:
    """:returns: the VAT the company owes as the buyer (reverse charge, intra-EU acquisition),
    else the warning for a foreign receipt entered without reverse charge, else nothing.

    :raises UpstreamError: if the supplier cannot be read.
    """
    owed = owed_fact(receipt)
    if owed is not None:
        return BuyerNotes(facts=[owed])
    abroad = await foreign_warning(client, receipt)
    return BuyerNotes(warnings=[abroad] if abroad else [])


def owed_fact(receipt: Receipt) -> Fact | None:
    """:returns: the preview's line about the VAT the company owes as the buyer, for a receipt
    under reverse charge or as an intra-EU acquisition; ``None`` otherwise."""
    found = OWED.get(receipt.rule)
    if found is None:
        return None
    what, box, deduction = found
    rate = next((r.rate for r in receipt.rows if r.rate > ZERO), REVERSE_CHARGE_RATE)
    if receipt.rule == ACQUISITION:
        box = "89" if rate == REVERSE_CHARGE_RATE else "93"
    owed = sum(
        (cents(r.net * (r.rate or REVERSE_CHARGE_RATE) / HUNDRED) for r in receipt.rows), ZERO
    )
    deducted = (
        f"deductible as input tax (box {deduction}) unless the company is a small business"
        if deduction
        else "not deductible (tax rule 13)"
    )
    return Fact(
        "VAT you owe",
        f"{what}: you owe {rate.normalize():f} % = {owed:.2f} EUR (box {box}), {deducted}",
    )


async def foreign_warning(client: SevdeskPort, receipt: Receipt) -> str | None:
    """:returns: the warning for a receipt at 0 % under an ordinary rule whose supplier or
    text points abroad, where the VAT return would place it; ``None`` otherwise.

    :raises UpstreamError: if the supplier cannot be read.
    """
    zero = [row for row in receipt.rows if row.tax == ZERO]
    if receipt.rule not in ORDINARY_RULES or not zero:
        return None
    contacts = {}
    if receipt.supplier_id is not None:
        raw = await read_raw(client, "Contact", receipt.supplier_id)
        contact = wire.parse(raw, wire.Contact)
        contacts[contact.id] = contact
    accounts = {
        r.account_id: wire.AccountDatev(id=r.account_id, number=r.account_number)
        for r in receipt.rows
    }
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
    lines = tuple(Line(r.net, r.tax, r.rate, r.account_id, r.text) for r in receipt.rows)
    return Record(
        kind="receipt", id=0, number=receipt.number, day=dt.date.min, delivered=None,
        draft=True, revenue=False, rule=receipt.rule, contact_id=receipt.supplier_id,
        country_id=None, currency="EUR", gross=ZERO, own_net=ZERO, own_tax=ZERO, lines=lines,
        party=receipt.party,
    )  # fmt: skip

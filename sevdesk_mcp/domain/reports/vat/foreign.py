"""Receipts from foreign suppliers entered without reverse charge (german-tax-rules §1,
"Purchases from abroad"), in the VAT return: each receipt of the books asked of the receipts'
rule (:func:`sevdesk_mcp.domain.receipts.abroad.placement`: a receipt at 0 % under an ordinary
rule (9, 10) whose supplier has a VAT id or IBAN of another state, or whose text says "reverse
charge", belongs in a German box where the place of supply is Germany; services supplied abroad
and imports from outside the EU belong in no box and get no hint)."""

from __future__ import annotations

from decimal import Decimal

import msgspec

from sevdesk_mcp.domain.receipts.abroad import Entered, Position, placement
from sevdesk_mcp.domain.reports.books import Books, Record


class Misplaced(msgspec.Struct, frozen=True, kw_only=True):
    """A receipt entered at 0 % that belongs in a reverse-charge or acquisition box."""

    record: Record
    boxes: str  # e.g. "46/47 and 67"
    base: Decimal
    tax: Decimal
    evidence: list[str]
    fix: str


def misplaced(books: Books, record: Record, *, deductible: bool) -> Misplaced | None:
    """:returns: where ``record`` belongs if it is a foreign supplier's receipt entered at 0 %
    without reverse charge, else ``None``."""
    if record.revenue:
        return None
    found = placement(_entered(books, record), deductible=deductible)
    if found is None:
        return None
    return Misplaced(
        record=record,
        boxes=found.boxes,
        base=found.base,
        tax=found.tax,
        evidence=found.evidence,
        fix=f"enter it with tax rule {found.rule} in sevDesk",
    )


def _entered(books: Books, record: Record) -> Entered:
    contact = books.contacts.get(record.contact_id or 0)
    return Entered(
        rule=record.rule,
        number=record.number,
        party=record.party,
        vat_id=contact.vatNumber if contact else None,
        ibans=record.ibans,
        positions=[
            Position(line.net, line.tax, _number(books, line.account), line.text)
            for line in record.lines
        ],
    )


def _number(books: Books, account_id: int | None) -> str:
    account = books.accounts.get(account_id or 0)
    return account.number if account and account.number else ""

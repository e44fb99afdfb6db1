"""The values the scorer and the planner work on: transactions, open documents, contacts."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final, Literal

import msgspec

DocKind = Literal["invoice", "credit_note", "voucher"]
HOME: Final = "EUR"


class Tx(msgspec.Struct, frozen=True):
    """An unbooked bank transaction.

    :param amount: signed like the bank flow (money in positive, Q26).
    :param rest: what is still unbooked of it (positive).
    :param currency: the currency of its check account (Q40: transactions carry none).
    """

    id: int
    account_id: int
    amount: Decimal
    rest: Decimal
    day: dt.date | None
    counterparty: str | None
    iban: str | None
    purpose: str | None
    currency: str = HOME

    @property
    def sign(self) -> int:
        """:returns: +1 for money in, -1 for money out."""
        return 1 if self.amount > 0 else -1


class Terms(msgspec.Struct, frozen=True):
    """A document's payment terms: days to pay, and a cash discount (Skonto) within days."""

    days_to_pay: int = 0
    discount_percent: Decimal = Decimal(0)
    discount_days: int = 0


class OpenDoc(msgspec.Struct, frozen=True):
    """An open or partly paid invoice, credit note or receipt.

    :param sign: the sign of the bank flow that pays it: +1 for an invoice and a revenue
        receipt, -1 for a credit note and an expense receipt (Q26).
    :param open: gross minus paid, positive, in the document's currency.
    :param rate: for another currency than the account's, the rate booked on the document
        (account currency per unit), if known.
    """

    kind: DocKind
    id: int
    number: str | None
    contact_id: int | None
    party: str | None
    sign: int
    gross: Decimal
    open: Decimal
    currency: str
    issued: dt.date | None
    terms: Terms = Terms()
    rate: Decimal | None = None

    @property
    def key(self) -> tuple[str, int]:
        """:returns: what identifies the document across kinds."""
        return (self.kind, self.id)

    @property
    def due(self) -> dt.date | None:
        """:returns: the due date from the payment terms, if the document has a date."""
        if self.issued is None:
            return None
        return self.issued + dt.timedelta(days=self.terms.days_to_pay)


class Party(msgspec.Struct, frozen=True):
    """A contact as the scorer sees it: its name, IBAN and customer number."""

    id: int
    name: str | None
    iban: str | None = None
    customer_number: str | None = None

"""Receipts on bookkeeping system 1.0: booking accounts are ``AccountingType`` ids, the receipt
carries a ``taxType`` instead of a tax rule (``docs/sevdesk-api.md`` §2.1, §3.4, §3.5; the spec's
voucher and voucher position attribute tables).

What 1.0 allows, as documented: the tax types ``default``, ``eu``, ``noteu``, ``custom`` and
``ss``; the rates of a tax type are those of the 2.0 tax rule that replaces it (1 and 9 replace
``default`` at 0/7/19 %, 3 ``eu`` at 0/7/19 %, 17 ``noteu`` at 0 %, 11 ``ss`` at 0 %). ``custom``
needs a tax set, which this server does not handle, so it is refused. Income accounting types
are for revenue, output types for expenses; the field that says which is undocumented, so that
is shown as a warning, not checked. The receipt guidance is a 2.0 service and is not asked.
An account number is looked up among the accounting types by its SKR03 or SKR04 number; a
number that names two of them is refused as ambiguous (``spec/DEVIATIONS.md`` D-089).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.vouchers import MAX_ACCOUNTS
from sevdesk_mcp.safety.fence import clean
from sevdesk_mcp.safety.preview import Said
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.wire_finance import AccountingType

TaxType = Literal["default", "eu", "noteu", "ss"]
DEFAULT_TAX_TYPE: Final[TaxType] = "default"
_ALL_RATES: Final = frozenset({Decimal(0), Decimal(7), Decimal(19)})
TAX_TYPE_RATES: Final[dict[str, frozenset[Decimal]]] = {
    "default": _ALL_RATES,
    "eu": _ALL_RATES,
    "noteu": frozenset({Decimal(0)}),
    "ss": frozenset({Decimal(0)}),
}
DIRECTION_WARNING: Final = Said(
    "Bookkeeping 1.0: sevDesk's API does not say whether an accounting type is an income or "
    "an output type (income types are for revenue, output types for expenses only); check "
    "that every account shown fits this receipt.",
    "Buchhaltung 1.0: Die API von sevDesk sagt nicht, ob eine Buchungskategorie eine Einnahme- "
    "oder eine Ausgabekategorie ist (Einnahmekategorien nur für Einnahmen, Ausgabekategorien "
    "nur für Ausgaben); prüfen Sie, ob jedes gezeigte Konto zu diesem Beleg passt.",
)
MAX_LISTED: Final = 12


def allowed_tax_types() -> str:
    """:returns: the tax types and rates 1.0 allows on a receipt, in words."""
    return ", ".join(
        f"{name} at {'/'.join(f'{r:f}' for r in sorted(rates))} %"
        for name, rates in TAX_TYPE_RATES.items()
    )


class LegacyAccount(msgspec.Struct, frozen=True):
    """One accounting type: its id, name and SKR03/SKR04 numbers (digits, as sent)."""

    id: int
    name: str
    skr03: str | None
    skr04: str | None

    @property
    def number(self) -> str:
        """:returns: the number to show: SKR03, else SKR04, else the id."""
        return self.skr03 or self.skr04 or f"id {self.id}"

    @property
    def label(self) -> str:
        """:returns: number, name and id, as the preview shows them."""
        return f"{self.number} {self.name} (accounting type {self.id})"

    def has_number(self, number: str) -> bool:
        """:returns: whether ``number`` is its SKR03 or SKR04 number (leading zeros aside)."""
        return any(_same_number(own, number) for own in (self.skr03, self.skr04))


def _same_number(own: str | None, given: str) -> bool:
    return bool(own and own.isdigit() and given.isdigit()) and int(own or 0) == int(given)


def _digits(value: str | int | None) -> str | None:
    text = None if value is None else str(value).strip()
    return text if text and text.isdigit() else None


def legacy_account(item: AccountingType) -> LegacyAccount:
    """:returns: the accounting type ``item``, its name cleaned."""
    return LegacyAccount(
        id=item.id,
        name=clean(item.name or "") or "?",
        skr03=_digits(item.skr03),
        skr04=_digits(item.skr04),
    )


class AccountingTypes:
    """The accounting types of a 1.0 account, by id and by number."""

    def __init__(self, accounts: Iterable[LegacyAccount]) -> None:
        self.all = list(accounts)
        self.by_id = {a.id: a for a in self.all}

    @classmethod
    async def load(cls, client: SevdeskPort) -> AccountingTypes:
        """:returns: every accounting type sevDesk lists (``GET /AccountingType``).

        :raises UpstreamError: if sevDesk cannot be read.
        """
        page = await client.get_all("/AccountingType", max_items=MAX_ACCOUNTS)
        return cls(legacy_account(t) for t in wire.parse_all(page.items, AccountingType))

    def by_number(self, number: str) -> list[LegacyAccount]:
        """:returns: the accounting types whose SKR03 or SKR04 number is ``number``."""
        return [a for a in self.all if a.has_number(number)]

    def listed(self) -> str:
        """:returns: the first accounting types, for a message."""
        shown = ", ".join(f"{a.number} {a.name}" for a in self.all[:MAX_LISTED])
        more = len(self.all) - MAX_LISTED
        return f"{shown}, and {more} more" if more > 0 else shown or "none"


def check_tax_type(tax_type: str, record: str | None = None) -> frozenset[Decimal]:
    """:returns: the rates ``tax_type`` allows.

    :raises PreconditionError: for a tax type this server does not write (``custom``, none).
    """
    rates = TAX_TYPE_RATES.get(tax_type)
    if rates is None:
        raise PreconditionError(
            f"Tax type {tax_type or '(none)'} is not written here (custom needs a tax set, which "
            f"this server does not handle). Bookkeeping 1.0 allows {allowed_tax_types()}; "
            "otherwise change the receipt in sevDesk itself.",
            record=record,
            field="tax_type",
        )
    return rates


def check_number(types: AccountingTypes, where: str, number: str) -> LegacyAccount:
    """:returns: the one accounting type with SKR number ``number``.

    :raises PreconditionError: if none or several have it, naming what there is.
    """
    found = types.by_number(number)
    if not found:
        raise PreconditionError(
            f"{where}: booking account {number} is no accounting type of this sevDesk account "
            f"(bookkeeping 1.0). Its accounting types: {types.listed()}. Ask for a suggestion "
            "of booking accounts to search them by what was bought.",
            field="positions",
        )
    if len(found) > 1:
        named = "; ".join(a.label for a in found)
        raise PreconditionError(
            f"{where}: booking account {number} is ambiguous on bookkeeping 1.0: it is the "
            f"SKR03 or SKR04 number of {named}. Nothing is guessed; record this receipt in "
            "sevDesk itself.",
            field="positions",
        )
    return found[0]


def check_rate(account: LegacyAccount, where: str, tax_type: str, rate: Decimal) -> None:
    """:raises PreconditionError: if ``tax_type`` does not allow ``rate``, naming what does."""
    if rate not in check_tax_type(tax_type):
        raise PreconditionError(
            f"{where}: tax type {tax_type} does not allow {rate:f} % (account {account.number}). "
            f"Bookkeeping 1.0 allows {allowed_tax_types()}. Change the tax type or the rate.",
            field="positions",
        )

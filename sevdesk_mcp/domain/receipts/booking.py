"""Where a receipt's positions are booked, per bookkeeping system version, checked before the
first request (``docs/sevdesk-api.md`` §3.4-§3.6):

- 2.0: ``accountDatev`` per position and a ``taxRule`` on the receipt, every position checked
  against the receipt guidance (:mod:`.guidance`);
- 1.0: ``accountingType`` per position and a ``taxType`` on the receipt, checked against what
  1.0 allows (:mod:`.accounting_types`).

A field of the other version is refused, never dropped: sevDesk would discard it silently (Q16).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final, Protocol

import msgspec

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts import accounting_types as v1
from sevdesk_mcp.domain.receipts.guidance import Guides, ReceiptKind, Wanted, check_position
from sevdesk_mcp.domain.writes import ref
from sevdesk_mcp.jsontypes import JsonValue
from sevdesk_mcp.safety.preview import Fact, Said, fact, quoted, say
from sevdesk_mcp.sevdesk.wire_finance import VoucherPos

DEFAULT_TAX_RULE: Final = 9


class Treatment(msgspec.Struct, frozen=True):
    """How the caller wants the receipt taxed: its kind, and a tax rule (2.0) or a tax type
    (1.0); ``None`` takes the default of the account's version."""

    kind: ReceiptKind
    tax_rule_id: int | None = None
    tax_type: str | None = None


class Account(msgspec.Struct, frozen=True):
    """The booking account of one position: its id, how the preview names it (sevDesk's name
    of the account quoted), and its number (bookkeeping 2.0; empty on 1.0)."""

    id: int
    label: Said
    number: str = ""


def _datev_label(number: str, name: str) -> Said:
    return say("{0} {1}", "{0} {1}", number, quoted(name))


def _typed_label(account: v1.LegacyAccount) -> Said:
    return say(
        "{0} {1} (accounting type {2})",
        "{0} {1} (Buchungskategorie {2})",
        account.number,
        quoted(account.name),
        account.id,
    )


class Booking(Protocol):
    """The checks and the wire fields of one bookkeeping version."""

    @property
    def model(self) -> str:
        """The wire model of the accounts: ``AccountDatev`` or ``AccountingType``."""
        ...

    @property
    def tax(self) -> tuple[str, JsonValue]:
        """The receipt's tax field and value: ``taxRule`` (2.0) or ``taxType`` (1.0)."""
        ...

    @property
    def tax_fact(self) -> Fact:
        """The preview's line about the tax rule or tax type."""
        ...

    @property
    def warnings(self) -> list[Said]:
        """What the preview warns about."""
        ...

    async def for_number(self, where: str, number: str, rate: Decimal) -> Account:
        """:returns: the account with ``number``, if it takes this receipt at ``rate``.

        :raises PreconditionError: naming the position and what is allowed.
        :raises UpstreamError: if sevDesk cannot be read.
        """
        ...

    def for_position(self, where: str, position: VoucherPos, rate: Decimal) -> Account:
        """:returns: the stored position's account, if it takes this receipt at ``rate``.

        :raises PreconditionError: naming the position and what is allowed.
        """
        ...


class _Guided(msgspec.Struct):
    """Bookkeeping 2.0: accounts and tax rules from the receipt guidance."""

    guides: Guides
    kind: ReceiptKind
    rule: int
    model: str = "AccountDatev"
    warnings: list[Said] = msgspec.field(default_factory=list)

    @property
    def tax(self) -> tuple[str, JsonValue]:
        return "taxRule", ref(self.rule, "TaxRule")

    @property
    def tax_fact(self) -> Fact:
        return fact("Tax rule", "Steuerregel", self.rule)

    async def for_number(self, where: str, number: str, rate: Decimal) -> Account:
        guide = await self.guides.number(number)
        guide = check_position(guide, where, number, Wanted(self.kind, self.rule, rate))
        return Account(guide.account_id, _datev_label(guide.number, guide.name), guide.number)

    def for_position(self, where: str, position: VoucherPos, rate: Decimal) -> Account:
        ident = position.accountDatev.id if position.accountDatev else 0
        wanted = Wanted(self.kind, self.rule, rate)
        guide = check_position(self.guides.by_id.get(ident), where, str(ident), wanted)
        return Account(guide.account_id, _datev_label(guide.number, guide.name), guide.number)


class _Typed(msgspec.Struct):
    """Bookkeeping 1.0: accounting types and a tax type."""

    types: v1.AccountingTypes
    tax_type: str
    model: str = "AccountingType"
    warnings: list[Said] = msgspec.field(default_factory=lambda: [v1.DIRECTION_WARNING])

    @property
    def tax(self) -> tuple[str, JsonValue]:
        return "taxType", self.tax_type

    @property
    def tax_fact(self) -> Fact:
        said = say("{0} (bookkeeping 1.0)", "{0} (Buchhaltung 1.0)", self.tax_type)
        return fact("Tax type", "Steuerart", said)

    async def for_number(self, where: str, number: str, rate: Decimal) -> Account:
        account = v1.check_number(self.types, where, number)
        v1.check_rate(account, where, self.tax_type, rate)
        return Account(account.id, _typed_label(account))

    def for_position(self, where: str, position: VoucherPos, rate: Decimal) -> Account:
        ident = position.accountingType.id if position.accountingType else None
        account = None if ident is None else self.types.by_id.get(ident)
        if account is None:
            raise PreconditionError(
                f"{where}: {'no accounting type' if ident is None else f'accounting type {ident}'}"
                " is not one of this sevDesk account's accounting types (bookkeeping 1.0; "
                f"they are: {self.types.listed()}). Update the draft with an account first.",
                field="positions",
            )
        v1.check_rate(account, where, self.tax_type, rate)
        return Account(account.id, _typed_label(account))


async def booking(
    client: SevdeskPort, version: str, wanted: Treatment, record: str | None = None
) -> Booking:
    """:returns: the checks of the account's bookkeeping ``version`` for ``wanted``.

    :raises PreconditionError: for a field of the other version, or a tax type not written here.
    :raises UpstreamError: if sevDesk cannot be read.
    """
    if version == "2.0":
        if wanted.tax_type is not None:
            raise PreconditionError(
                f"tax_type {wanted.tax_type} is for bookkeeping 1.0; this sevDesk account keeps "
                "bookkeeping 2.0, so give tax_rule_id (e.g. 9 deductible input tax) instead.",
                record=record,
                field="tax_type",
            )
        rule = DEFAULT_TAX_RULE if wanted.tax_rule_id is None else wanted.tax_rule_id
        return _Guided(await Guides.load(client), wanted.kind, rule)
    if wanted.tax_rule_id is not None:
        raise PreconditionError(
            f"tax_rule_id {wanted.tax_rule_id} is for bookkeeping 2.0; this sevDesk account keeps "
            f"bookkeeping 1.0, so give tax_type instead ({v1.allowed_tax_types()}).",
            record=record,
            field="tax_rule_id",
        )
    tax_type = v1.DEFAULT_TAX_TYPE if wanted.tax_type is None else wanted.tax_type
    v1.check_tax_type(tax_type, record)
    return _Typed(await v1.AccountingTypes.load(client), tax_type)

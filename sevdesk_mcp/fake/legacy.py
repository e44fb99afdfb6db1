"""Leftovers of bookkeeping system 1.0: the booking accounts called ``AccountingType``.

Receipts saved before an account moved to 2.0 keep ``taxType`` on the voucher and an
``accountingType`` on each position, with ``accountDatev: null`` (``docs/sevdesk-api.md`` §3.4,
§3.5). GET /AccountingType is undocumented in the current spec; the shape follows the older
spec's ``Model_AccountingType`` (``name``, ``skr03``, ``skr04``, ``status``), UNVERIFIED live.
Ids are invented.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, NamedTuple

from sevdesk_mcp.jsontypes import JsonObject


class AccountingType(NamedTuple):
    """One legacy booking account with its SKR03 and SKR04 numbers."""

    id: int
    name: str
    skr03: str
    skr04: str


ACCOUNTING_TYPES: Final = (
    AccountingType(14, "Wareneingang", "3400", "5400"),
    AccountingType(21, "Miete", "4210", "6310"),
    AccountingType(26, "Bürobedarf", "4930", "6815"),
    AccountingType(27, "Porto", "4910", "6800"),
    AccountingType(38, "Telefon", "4920", "6805"),
    AccountingType(62, "Erlöse 19 % USt", "8400", "4400"),
)
_BY_ID: Final = {t.id: t for t in ACCOUNTING_TYPES}


def accounting_type_by_id(
    ident: int, own: Mapping[int, AccountingType] | None = None
) -> AccountingType | None:
    """:returns: the legacy booking account with id ``ident``: of the account's ``own`` ones
    when it has them (a rehearsal's real ones), else of the fake's."""
    if own:
        return own.get(ident)
    return _BY_ID.get(ident)


def accounting_type_wire(entry: AccountingType) -> JsonObject:
    """:returns: the GET /AccountingType object (strings, Q4)."""
    return {
        "id": str(entry.id),
        "objectName": "AccountingType",
        "additionalInformation": None,
        "name": entry.name,
        "skr03": entry.skr03,
        "skr04": entry.skr04,
        "status": "100",
    }

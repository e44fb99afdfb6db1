"""The booking accounts (AccountDatev) of both charts and the receipt guidance built from them.

A fake account uses one chart, SKR03 by default (``accounts_skr03.py``) or SKR04
(``accounts_skr04.py``); ids are per chart in sevDesk. Hidden accounts are left out of GET
/AccountDatev and of the guidance but reachable by id (Q42). Guidance items carry **ints** for
ids, unlike every other object (§3.6, Q8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from sevdesk_mcp.fake.account_rules import EXPENSE, REVENUE, SKR03, SKR04, Account, Chart
from sevdesk_mcp.fake.accounts_skr03 import SKR03_ACCOUNTS
from sevdesk_mcp.fake.accounts_skr04 import SKR04_ACCOUNTS
from sevdesk_mcp.fake.reference import tax_rule_codes
from sevdesk_mcp.jsontypes import JsonObject, JsonValue

__all__ = [
    "ACCOUNTS",
    "CHARTS",
    "EXPENSE",
    "REVENUE",
    "SKR03",
    "SKR04",
    "Account",
    "Chart",
    "account_by_id",
    "account_by_number",
    "account_wire",
    "chart_accounts",
    "guidance",
    "guided_accounts",
]

ACCOUNTS: Final = SKR03_ACCOUNTS  # the default chart's accounts
CHARTS: Final[dict[str, tuple[Account, ...]]] = {SKR03: SKR03_ACCOUNTS, SKR04: SKR04_ACCOUNTS}
_BY_ID: Final = {chart: {a.id: a for a in rows} for chart, rows in CHARTS.items()}
_BY_NUMBER: Final = {chart: {a.number: a for a in rows} for chart, rows in CHARTS.items()}


def chart_accounts(chart: Chart = SKR03) -> tuple[Account, ...]:
    """:returns: every account of ``chart``, hidden ones included."""
    return CHARTS[chart]


def account_by_id(
    ident: int, chart: Chart = SKR03, own: Mapping[int, Account] | None = None
) -> Account | None:
    """:returns: the account with AccountDatev id ``ident``, hidden or not (Q42): of the
    account's ``own`` booking accounts when it has them (a rehearsal's real chart), else of
    ``chart``."""
    if own:
        return own.get(ident)
    return _BY_ID[chart].get(ident)


def account_by_number(number: str, chart: Chart = SKR03) -> Account | None:
    """:returns: the account of ``chart`` with number ``number``."""
    return _BY_NUMBER[chart].get(number)


def account_wire(account: Account) -> JsonObject:
    """:returns: the GET /AccountDatev object (shape UNVERIFIED: the endpoint is undocumented)."""
    return {
        "id": str(account.id),
        "objectName": "AccountDatev",
        "additionalInformation": None,
        "number": account.number,
        "name": account.name,
        "description": account.description,
        "hidden": "1" if account.hidden else "0",
    }


def guidance(account: Account) -> JsonObject:
    """:returns: the ReceiptGuidance item of ``account`` (§3.6: ids are ints here)."""
    codes = tax_rule_codes()
    rules: list[JsonValue] = [
        {
            "name": codes[rule][0],
            "id": rule,
            "description": codes[rule][2],
            "taxRates": list(rates),
        }
        for rule, rates in account.rules
    ]
    return {
        "accountDatevId": account.id,
        "accountNumber": account.number,
        "accountName": account.name,
        "description": account.description,
        "allowedTaxRules": rules,
        "allowedReceiptTypes": list(account.receipt_types),
    }


def guided_accounts(receipt_type: str | None = None, chart: Chart = SKR03) -> list[Account]:
    """:returns: the visible accounts of ``chart`` with guidance, optionally only of one
    receipt type."""
    return [
        a
        for a in CHARTS[chart]
        if a.rules and not a.hidden and (receipt_type is None or receipt_type in a.receipt_types)
    ]

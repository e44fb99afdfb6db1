"""Suggestions on bookkeeping 1.0: the candidates are the account's accounting types
(``GET /AccountingType``, :mod:`..accounting_types`), found by the words table (an accounting
type carries its SKR03 and SKR04 numbers) or by a whole word of their name. Whether a type is for
income or expenses is not in the API, so the kind filters nothing and the answer says so; the
receipt guidance and the history (2.0 services) are not asked.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts import accounting_types as v1
from sevdesk_mcp.domain.receipts.suggest.matching import Matched, match
from sevdesk_mcp.domain.receipts.suggest.model import Company, ReceiptQuery, Suggestion, Suggestions
from sevdesk_mcp.domain.receipts.suggest.text import words
from sevdesk_mcp.domain.receipts.suggest.words import SOURCE

MAX_SUGGESTIONS: Final = 5
NOTE: Final = (
    "Suggestions only: the human decides. Bookkeeping 1.0: give the accounting type's number "
    "as account_number and a tax_type; sevDesk's API does not say whether an accounting type "
    "is for income or expenses, so check that it fits the receipt."
)


async def suggest_v1(client: SevdeskPort, query: ReceiptQuery, company: Company) -> Suggestions:
    """:returns: the accounting types the description points to (bookkeeping 1.0).

    :raises UpstreamError: if sevDesk cannot be read.
    """
    types = await v1.AccountingTypes.load(client)
    said = words(query.description)
    found: dict[int, Suggestion] = {}
    for matched in match(said):
        for account in _by_case(types, matched, company):
            found.setdefault(account.id, _suggestion(account, _told(matched), query.rate))
    for account in types.all:
        shared = sorted(w for w in words(account.name) if len(w) >= 4 and w in set(said))
        if shared and account.id not in found:
            why = f"name: the description's word '{shared[0]}' is in the type's name"
            found[account.id] = _suggestion(account, why, query.rate)
    listed = list(found.values())[:MAX_SUGGESTIONS]
    if not listed:
        return Suggestions(suggestions=[], note=_none(types), missing=_missing())
    return Suggestions(suggestions=listed, note=NOTE)


def _by_case(
    types: v1.AccountingTypes, matched: Matched, company: Company
) -> list[v1.LegacyAccount]:
    chart = company.chart or "skr03"
    number = matched.case.skr03 if chart == "skr03" else matched.case.skr04
    return [a for a in types.all if (a.skr03 if chart == "skr03" else a.skr04) == number]


def _told(matched: Matched) -> str:
    case = matched.case
    return (
        f"words: {', '.join(repr(p) for p in matched.phrases[:3])} are typical for {case.label} "
        f"({SOURCE})"
    )


def _suggestion(account: v1.LegacyAccount, why: str, rate: Decimal | None) -> Suggestion:
    rates = v1.TAX_TYPE_RATES.values()
    return Suggestion(
        account_number=account.number,
        account_name=account.name,
        account_id=account.id,
        confidence="low" if why.startswith("name") else "medium",
        reason=why,
        evidence=[why],
        allowed=f"accounting type {account.id} (bookkeeping 1.0) with tax type "
        f"{v1.allowed_tax_types()}",
        rate_fits=None if rate is None else any(rate in r for r in rates),
    )


def _none(types: v1.AccountingTypes) -> str:
    return (
        "No accounting type matches the description; nothing is guessed. This sevDesk account "
        f"(bookkeeping 1.0) has: {types.listed()}."
    )


def _missing() -> str:
    return "no words of the table or of an accounting type's name: give the receipt's text"

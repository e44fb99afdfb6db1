"""Suggestions of booking accounts for a receipt, from the account's receipt guidance.

Nothing is guessed silently: an account is proposed only when a word of the description matches
its name or guidance text, or a keyword typical for that SKR03 account number (the reason names
which); each suggestion lists the tax rules and rates the guidance allows, and marks whether the
rate asked for fits. With no match the answer says so and points to the full list.

On bookkeeping 1.0 the candidates are the account's accounting types (``GET /AccountingType``):
``account_id`` is the accounting type's id, ``allowed`` names the tax types and rates 1.0
allows; whether a type is for income or expenses is not in the API, so the kind filters nothing
there and the answer says so (:mod:`.accounting_types`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Final, Protocol, TypeVar

import msgspec

from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts import accounting_types as v1
from sevdesk_mcp.domain.receipts.guidance import RECEIPT_TYPES, Guide, Guides, ReceiptKind

MAX_SUGGESTIONS: Final = 5
_WORD: Final = re.compile(r"[a-zäöüß]{4,}")
KEYWORDS: Final[dict[str, tuple[str, ...]]] = {  # SKR03 numbers; lower-case word stems
    "4930": ("büro", "papier", "ordner", "toner", "druckerpatrone", "office", "stationery"),
    "4910": ("porto", "briefmarke", "paket", "versand", "postage", "shipping"),
    "4920": ("telefon", "mobilfunk", "handy", "phone"),
    "4925": ("internet", "glasfaser", "dsl", "hosting"),
    "4970": ("kontoführung", "kontogebühr", "bankgebühr", "entgelt", "bank fee"),
    "4650": ("bewirtung", "restaurant", "gasthaus", "essen", "catering"),
    "4530": ("diesel", "benzin", "tankstelle", "kraftstoff", "fuel", "werkstatt"),
    "4210": ("miete", "rent"),
    "4240": ("strom", "gas", "wasser", "energie", "electricity"),
    "4360": ("versicherung", "haftpflicht", "insurance"),
    "4940": ("buch", "fachbuch", "zeitschrift", "book", "magazine"),
    "4950": ("anwalt", "steuerberat", "beratung", "kanzlei", "legal", "consulting"),
    "4806": ("software", "lizenz", "abo", "license", "subscription"),
    "3400": ("wareneingang", "material", "holz", "schnittholz", "beschlag"),
    "0480": ("werkzeug", "maschine", "gerät", "tool"),
    "4900": ("messe", "sonstig", "gebühr", "beitrag", "innung"),
    "8400": ("erlös", "verkauf", "barverkauf", "sale"),
}


class _Numbered(Protocol):
    @property
    def number(self) -> str: ...


N = TypeVar("N", bound=_Numbered)


class Suggestion(msgspec.Struct, frozen=True, kw_only=True):
    """One booking account that may fit, with why and what it allows."""

    account_number: str
    account_name: str
    account_id: int
    reason: str
    allowed: str
    rate_fits: bool | None


class Suggestions(msgspec.Struct, frozen=True, kw_only=True):
    """The suggestions, best first; ``note`` says what to do when none fits."""

    suggestions: list[Suggestion]
    note: str


async def suggest(
    client: SevdeskPort, description: str, kind: ReceiptKind, rate: Decimal | None
) -> Suggestions:
    """:returns: booking accounts whose name, guidance or keywords match ``description``: from
    the receipt guidance on bookkeeping 2.0, from the accounting types on 1.0.

    :raises UpstreamError: if sevDesk cannot be read.
    """
    if await client.system_version() != "2.0":
        return await _suggest_legacy(client, description, rate)
    guides = await Guides.load(client)
    best = _best(
        description,
        (
            (guide, f"{guide.name} {guide.description or ''}", guide.number)
            for guide in guides.by_number.values()
            if RECEIPT_TYPES[kind] in guide.kinds
        ),
    )
    found = [_suggestion(g, reason, kind, rate) for g, reason in best]
    note = (
        "Suggestions only: the human decides. Check the receipt's tax rule and rate against "
        "'allowed'."
        if found
        else "No booking account matches the description; nothing is guessed. Pick one from "
        "the booking accounts of the reference data (each lists what it allows)."
    )
    return Suggestions(suggestions=found, note=note)


async def _suggest_legacy(
    client: SevdeskPort, description: str, rate: Decimal | None
) -> Suggestions:
    """:returns: the accounting types matching ``description`` (bookkeeping 1.0).

    :raises UpstreamError: if sevDesk cannot be read.
    """
    types = await v1.AccountingTypes.load(client)
    best = _best(description, ((a, a.name, a.skr03 or "") for a in types.all))
    found = [_legacy(a, reason, rate) for a, reason in best]
    note = (
        "Suggestions only: the human decides. Bookkeeping 1.0: give the accounting type's number "
        "as account_number and a tax_type; sevDesk's API does not say whether an accounting "
        "type is for income or expenses, so check that it fits the receipt."
        if found
        else "No accounting type matches the description; nothing is guessed. This sevDesk "
        f"account (bookkeeping 1.0) has: {types.listed()}."
    )
    return Suggestions(suggestions=found, note=note)


def _legacy(account: v1.LegacyAccount, reason: str, rate: Decimal | None) -> Suggestion:
    return Suggestion(
        account_number=account.number,
        account_name=account.name,
        account_id=account.id,
        reason=reason,
        allowed=f"accounting type {account.id} (bookkeeping 1.0) with tax type "
        f"{v1.allowed_tax_types()}",
        rate_fits=_rate_fits(rate, v1.TAX_TYPE_RATES.values()),
    )


def _best(description: str, candidates: Iterable[tuple[N, str, str]]) -> list[tuple[N, str]]:
    """:returns: up to :data:`MAX_SUGGESTIONS` of ``candidates`` (each with its own text and
    SKR03 number) that match ``description``, best first, then by number, each with why."""
    text = description.casefold()
    words = set(_WORD.findall(text))
    scored: list[tuple[int, N, str]] = []
    for candidate, own_text, skr03 in candidates:
        score, reason = _score(own_text, skr03, words, text)
        if score:
            scored.append((score, candidate, reason))
    scored.sort(key=lambda s: (-s[0], s[1].number))
    return [(candidate, reason) for _, candidate, reason in scored[:MAX_SUGGESTIONS]]


def _score(own_text: str, skr03: str, words: set[str], text: str) -> tuple[int, str]:
    own = set(_WORD.findall(own_text.casefold()))
    shared = sorted(
        w for w in words if any(w.startswith(o[:5]) or o.startswith(w[:5]) for o in own)
    )
    if shared:
        return 2 * len(shared), f"the description's '{shared[0]}' matches the account's name"
    hits = [k for k in KEYWORDS.get(skr03, ()) if k in text]
    if hits:
        return len(hits), f"'{hits[0]}' is typical for SKR03 account {skr03}"
    return 0, ""


def _suggestion(guide: Guide, reason: str, kind: ReceiptKind, rate: Decimal | None) -> Suggestion:
    return Suggestion(
        account_number=guide.number,
        account_name=guide.name,
        account_id=guide.account_id,
        reason=reason,
        allowed=guide.allowed(kind),
        rate_fits=_rate_fits(rate, guide.rules.values()),
    )


def _rate_fits(rate: Decimal | None, allowed: Iterable[frozenset[Decimal]]) -> bool | None:
    """:returns: whether ``rate`` is one of the ``allowed`` rates; ``None`` if none was asked."""
    return None if rate is None else any(rate in rates for rates in allowed)

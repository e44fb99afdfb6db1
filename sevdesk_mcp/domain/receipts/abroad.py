"""Receipts from foreign suppliers (german-tax-rules §1, "Purchases from abroad"): where a
supplier is from, which services are supplied where they are used, and where a receipt entered at
0 % under an ordinary rule (9, 10) belongs. The VAT return (``reports/vat/foreign.py``), the
receipt previews (:mod:`.foreign`) and the booking suggestions (:mod:`.suggest.foreign`) all
read these rules.

A receipt at 0 % under an ordinary rule whose supplier has a VAT id or IBAN of another state, or
whose text says "reverse charge", belongs in a German box where the place of supply is Germany:
EU goods in 89/93 with 61, EU services in 46/47, other services in 84/85, each with 67 where the
buyer may deduct. Services whose place of supply is abroad (a hotel, a restaurant, a ticket, a
fare) and imports from outside the EU belong in no box.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Final, Literal

import msgspec

from sevdesk_mcp.domain.money import HUNDRED, ZERO, cents
from sevdesk_mcp.safety.fence import clean

Origin = Literal["eu", "non_eu", "unknown"]
EU_STATES: Final = frozenset(
    {"AT", "BE", "BG", "CY", "CZ", "DK", "EE", "EL", "ES", "FI", "FR", "GR", "HR", "HU", "IE",
     "IT", "LT", "LU", "LV", "MT", "NL", "PL", "PT", "RO", "SE", "SI", "SK", "XI"}
)  # fmt: skip
ORDINARY_RULES: Final = frozenset({9, 10})
_WORDS: Final = re.compile(
    r"reverse[\s-]*charge|steuerschuldnerschaft\s+des\s+leistungsempf|art(icle|\.)?\s*196"
    r"|autoliquidation|omgekeerde\s+heffing|inversi[oó]n\s+del\s+sujeto|inversione\s+contabile"
    r"|§\s*13\s*b",
    re.IGNORECASE,
)
_ABROAD_WORDS: Final = re.compile(
    r"\b(hotel\w*|übernachtung\w*|restaurant\w*|bewirtung\w*|eintrittskarte\w*|flug\w*"
    r"|flight\w*|taxi)\b",
    re.IGNORECASE,
)
# booking accounts whose place of supply is where the service is used (§3a(3), §3b UStG):
# travel, hotels, meals (SKR03 / SKR04)
_ABROAD_ACCOUNTS: Final = frozenset(
    {"4650", "4654", "4660", "4663", "4664", "4666", "4670", "4673", "4674", "4676",
     "6640", "6644", "6660", "6663", "6664", "6673", "6674", "6680"}
)  # fmt: skip


class Position(msgspec.Struct, frozen=True):
    """One position of a receipt as entered: net, tax, booking account number (``""`` when
    unknown) and text."""

    net: Decimal
    tax: Decimal
    account_number: str = ""
    text: str | None = None


class Entered(msgspec.Struct, frozen=True, kw_only=True):
    """A receipt as entered, as far as the check reads it: tax rule, number, supplier (name,
    VAT id, the IBANs it was paid to) and positions."""

    rule: int | None
    number: str | None
    party: str
    vat_id: str | None
    ibans: Sequence[str] = ()
    positions: Sequence[Position]


class Placement(msgspec.Struct, frozen=True, kw_only=True):
    """Where a receipt entered at 0 % belongs: the boxes, base and tax at 19 %, the evidence
    in words and the tax rule to enter it with."""

    boxes: str  # e.g. "46/47 and 67"
    base: Decimal
    tax: Decimal
    evidence: list[str]
    rule: int


def placement(receipt: Entered, *, deductible: bool) -> Placement | None:
    """:returns: where ``receipt`` belongs if it is a foreign supplier's expense entered at 0 %
    under an ordinary rule without reverse charge, else ``None``."""
    if receipt.rule not in ORDINARY_RULES:
        return None
    zero = [p for p in receipt.positions if p.tax == ZERO and p.net != ZERO]
    texts = _texts(receipt)
    numbers = (p.account_number for p in receipt.positions if p.account_number)
    if not zero or place_abroad(numbers, texts):
        return None
    origin, evidence = origin_of(receipt.vat_id, receipt.ibans)
    if any(_WORDS.search(text) for text in texts):
        evidence.append("its text names reverse charge")
    if not evidence:
        return None
    goods = any(_goods_account(p.account_number) for p in zero)
    if goods and origin != "eu":
        return None  # an import: import VAT (box 62) comes with the customs notice
    base = cents(sum((p.net for p in zero), ZERO))
    tax = cents(base * Decimal(19) / HUNDRED)
    box, rule = _box(origin, goods=goods)
    input_box = "61" if goods else "67"
    return Placement(
        boxes=f"{box} and {input_box}" if deductible else box,
        base=base,
        tax=tax,
        evidence=evidence,
        rule=rule,
    )


def _box(origin: Origin, *, goods: bool) -> tuple[str, int]:
    if goods:
        return "89", 8
    return ("46/47", 14) if origin == "eu" else ("84/85", 12)


def origin_of(
    vat_id: str | None, ibans: Iterable[str] = (), country: str | None = None
) -> tuple[Origin, list[str]]:
    """:returns: where a supplier is from by its VAT id's prefix, its IBANs' country codes and
    its country (ISO code), strongest first, and the evidence in words; ``"unknown"`` with no
    evidence for a German or unknown supplier."""
    evidence: list[str] = []
    origin: Origin = "unknown"
    code = clean(vat_id or "").replace(" ", "").upper()
    if len(code) > 2 and code[:2].isalpha() and code[:2] != "DE":
        evidence.append(f"the supplier's VAT id {code}")
        origin = _region(code[:2])
    for iban in ibans:
        if iban[:2].isalpha() and iban[:2].upper() != "DE":
            evidence.append(f"paid to the IBAN {iban[:2]}…{iban[-4:]}")
            origin = _region(iban[:2].upper()) if origin == "unknown" else origin
    land = (country or "").strip().upper()
    if len(land) == 2 and land.isalpha() and land != "DE":
        evidence.append(f"the supplier's country {land}")
        origin = _region(land) if origin == "unknown" else origin
    return origin, evidence


def _region(code: str) -> Origin:
    return "eu" if code in EU_STATES else "non_eu"


def place_abroad(account_numbers: Iterable[str], texts: Iterable[str]) -> bool:
    """:returns: whether the booking accounts (travel, hotels, meals) or the texts (hotel,
    restaurant, ticket, flight, taxi) name a service whose place of supply is where it is used
    (§3a(3), §3b UStG): supplied abroad by a foreign business, it carries no German VAT."""
    if any(number in _ABROAD_ACCOUNTS for number in account_numbers):
        return True
    return any(_ABROAD_WORDS.search(text) for text in texts)


def _goods_account(number: str) -> bool:
    return len(number) == 4 and (number[0] == "3" or number[0] == "5")  # SKR03 3, SKR04 5


def _texts(receipt: Entered) -> list[str]:
    return [t for t in (receipt.number, receipt.party, *(p.text for p in receipt.positions)) if t]

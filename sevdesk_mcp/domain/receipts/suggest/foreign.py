"""Reverse charge proposed for a foreign supplier's receipt without German VAT
(german-tax-rules.md §1 "Purchases from abroad"), with the sentence the create and finalize
previews show ("§13b: you owe 19 % = 57.00 EUR, deductible as input tax").

Where the supplier is from is the rule the VAT return applies too (:func:`..abroad.origin_of`:
VAT id prefix, IBAN country, country). Services of an EU business: tax rule 14 (boxes 46/47, 67);
of a non-EU business: rule 12 (84/85, 67); goods from the EU: rule 8, an intra-EU acquisition
(89 at 19 %, 93 at 7 %, with 61). Nothing is proposed where the place of supply is abroad (a
hotel, restaurant or fare abroad carries foreign VAT, §3a(3), §3b UStG), for imports of goods
from outside the EU (import VAT comes with the customs notice, box 62), for what is no supply
(insurance, tax, fees), or when the receipt shows German VAT. A company that may not deduct
(a small business) owes the tax all the same, without deduction (rule 13 for services).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import HUNDRED, cents
from sevdesk_mcp.domain.receipts.abroad import origin_of, place_abroad
from sevdesk_mcp.domain.receipts.suggest.words import NINETEEN, SEVEN, Nature

EU_SERVICES: Final = 14
NON_EU_SERVICES: Final = 12
NOT_DEDUCTIBLE: Final = 13
EU_GOODS: Final = 8
# rule -> (what it is, the boxes of base and tax owed, the box of the deduction)
RULES: Final[dict[int, tuple[str, str, str | None]]] = {
    EU_SERVICES: ("§13b", "46/47", "67"),
    NON_EU_SERVICES: ("§13b", "84/85", "67"),
    NOT_DEDUCTIBLE: ("§13b", "46/47 or 84/85", None),
    EU_GOODS: ("§1a intra-EU acquisition", "89", "61"),
}


class SupplierFacts(msgspec.Struct, frozen=True, kw_only=True):
    """Who the supplier is, as far as known: a contact, a name, a VAT id, an IBAN, a country
    (ISO code)."""

    contact_id: int | None = None
    name: str | None = None
    vat_id: str | None = None
    iban: str | None = None
    country: str | None = None


class ReverseCharge(msgspec.Struct, frozen=True, kw_only=True):
    """The proposal: the tax rule, the German rate and tax owed, the boxes, the preview's
    sentence and why."""

    rule: int
    rate: Decimal
    tax: Decimal
    boxes: str
    sentence: str
    evidence: list[str]


def propose_reverse_charge(  # noqa: PLR0913 - each is a separate fact of the receipt
    supplier: SupplierFacts,
    net: Decimal,
    *,
    nature: Nature,
    german_vat: bool,
    texts: Iterable[str] = (),
    rate: Decimal = NINETEEN,
    deductible: bool = True,
) -> ReverseCharge | None:
    """:returns: the reverse-charge (or intra-EU acquisition) proposal for a receipt of
    ``net`` EUR from ``supplier``, or ``None`` where none applies (see the module).

    :param nature: what was bought (goods, a service, a service supplied where it is used, no
        supply); :param texts: the receipt's words, checked for hotels, meals and fares;
        :param rate: the German rate of the goods or service (7 or 19).
    """
    if german_vat or nature in ("abroad", "none") or place_abroad((), texts):
        return None
    origin, evidence = origin_of(supplier.vat_id, [supplier.iban or ""], supplier.country)
    if origin == "unknown" or (nature == "goods" and origin != "eu"):
        return None
    rule = _rule(origin == "eu", goods=nature == "goods", deductible=deductible)
    sentence = owed_sentence(rule, net, rate=rate, deductible=deductible)
    tax = cents(net * rate / HUNDRED)
    return ReverseCharge(
        rule=rule, rate=rate, tax=tax, boxes=_boxes(rule, rate, deductible=deductible),
        sentence=sentence, evidence=evidence,
    )  # fmt: skip


def owed_sentence(
    rule: int, net: Decimal, *, rate: Decimal = NINETEEN, deductible: bool = True
) -> str:
    """:returns: the preview's sentence for a receipt under ``rule`` (8, 12, 13 or 14) of
    ``net`` EUR, e.g. "§13b: you owe 19 % = 57.00 EUR, deductible as input tax (boxes 46/47 and
    67)".

    :raises KeyError: for a rule that is neither reverse charge nor an intra-EU acquisition.
    """
    what = RULES[rule][0]
    tax = cents(net * rate / HUNDRED)
    deduction = RULES[rule][2]
    said = (
        "deductible as input tax"
        if deductible and deduction
        else "not deductible (no input tax deduction)"
    )
    boxes = _boxes(rule, rate, deductible=deductible)
    return f"{what}: you owe {rate:f} % = {tax:.2f} EUR, {said} (boxes {boxes})"


def _rule(eu: bool, *, goods: bool, deductible: bool) -> int:
    if goods:
        return EU_GOODS
    if not deductible:
        return NOT_DEDUCTIBLE
    return EU_SERVICES if eu else NON_EU_SERVICES


def _boxes(rule: int, rate: Decimal, *, deductible: bool) -> str:
    _, base, deduction = RULES[rule]
    if rule == EU_GOODS and rate == SEVEN:
        base = "93"
    return f"{base} and {deduction}" if deductible and deduction else base

"""Which box of the advance VAT return (UStVA, the official form of 2026) a position of a
document or receipt belongs to, by sevDesk's tax rule (``taxRule``, bookkeeping 2.0, §3.4) and
the position's rate. The rules and their sources are explained in docs/tax.md.

Boxes 73/74 (§13b(2) no. 2 and 3) have no tax rule of their own: a receipt under rule 12 or 13
goes there when its position's text names the case (:func:`is_13b_2_3`), else to 84/85.

A verdict is either placements in boxes, or "outside the return" with the reason (One-Stop-Shop
sales, not taxable, no input tax deduction), or "unclassified" with the reason: never dropped.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import HUNDRED, ZERO, cents

RATE_19: Final = Decimal(19)
RATE_7: Final = Decimal(7)
REVERSE_CHARGE_RATE: Final = RATE_19  # sevDesk's rules 12-14 say "0% (19%)"

# box: title. A pair "35/36" is base/tax; boxes of input tax have only a tax.
BOXES: Final = {
    "81": "Taxable sales at 19 % (base; tax as invoiced, the form computes it from the base)",
    "86": "Taxable sales at 7 % (base; tax as invoiced, the form computes it from the base)",
    "35/36": "Taxable sales at other rates (base / tax)",
    "41": "Tax-free intra-EU supplies to buyers with a VAT id",
    "43": "Other tax-free sales with input tax deduction (e.g. exports)",
    "48": "Tax-free sales without input tax deduction (§4 no. 8-29)",
    "21": "Services to EU businesses, tax owed by the customer (§18b)",
    "45": "Other sales not taxable in Germany",
    "60": "Sales where the customer owes the tax (§13b(5))",
    "89": "Intra-EU acquisitions at 19 % (base; tax = base x 19 %)",
    "93": "Intra-EU acquisitions at 7 % (base; tax = base x 7 %)",
    "46/47": "Services from EU businesses, §13b(1) (base / tax)",
    "73/74": "Security transfers and real estate, §13b(2) no. 2, 3 (base / tax)",
    "84/85": "Other services, §13b(2) no. 1, 4-12 (base / tax)",
    "66": "Input tax from invoices of other businesses",
    "61": "Input tax from intra-EU acquisitions",
    "67": "Input tax from services under §13b",
}
OUTPUT_TAX_BOXES: Final = ("81", "86", "35/36", "89", "93", "46/47", "73/74", "84/85")
INPUT_TAX_BOXES: Final = ("66", "61", "67")
CASH_BOXES: Final = frozenset({"81", "86", "35/36"})  # Ist: by payment (§20 UStG)
FORM_RATES: Final = {"81": RATE_19, "86": RATE_7, "89": RATE_19, "93": RATE_7}
OWED_BY_BUYER: Final = frozenset({"89", "93", "46/47", "73/74", "84/85"})  # §18(4a) UStG


class Placement(msgspec.Struct, frozen=True):
    """An amount in one box: the base (``None`` for input tax) and the tax."""

    box: str
    base: Decimal | None
    tax: Decimal


class Verdict(msgspec.Struct, frozen=True):
    """Where a position goes: boxes, or outside the return, or unclassified (with why)."""

    placements: tuple[Placement, ...] = ()
    outside: str | None = None
    unclassified: str | None = None


def classify(  # noqa: PLR0913 - the position's facts, stated
    rule: int | None,
    rate: Decimal,
    net: Decimal,
    tax: Decimal,
    *,
    revenue: bool,
    text: str | None = None,
) -> Verdict:
    """:returns: the verdict for one position of a revenue document or an expense receipt;
    ``text`` (a receipt position's own text) tells §13b(2) no. 2 and 3 apart (:func:`is_13b_2_3`).
    """
    if rule is None:
        return Verdict(unclassified="it has no tax rule (bookkeeping 1.0 or missing)")
    return _revenue(rule, rate, net, tax) if revenue else _expense(rule, rate, net, tax, text)


_SECTION_13B_2_3: Final = re.compile(
    r"§\s*13\s*b\s*(?:Abs\.?\s*2|\(\s*2\s*\))\s*(?:Nr\.?|no\.?|S\.\s*1\s*Nr\.?)?\s*[23]"
    r"(?![0-9])",
    re.IGNORECASE,
)
_WORDS_13B_2_3: Final = ("sicherungsübereign", "grunderwerbsteuer", "grestg")


def is_13b_2_3(text: str | None) -> bool:
    """:returns: whether a reverse-charge position's text names §13b(2) no. 2 (goods
    transferred as security) or no. 3 (sales under the real estate transfer tax act): the
    section (``§13b Abs. 2 Nr. 2``, ``§ 13b (2) no. 3``), or the words ``sicherungsübereignet``,
    ``Grunderwerbsteuer``, ``GrEStG``. sevDesk's tax rules do not tell these cases apart."""
    if not text:
        return False
    folded = text.casefold()
    return bool(_SECTION_13B_2_3.search(text)) or any(w in folded for w in _WORDS_13B_2_3)


_PLAIN: Final = {2: "43", 3: "41", 4: "48", 5: "60", 17: "45", 21: "21"}
_TAXABLE: Final = {RATE_19: "81", RATE_7: "86"}
_NOT_IN_RETURN: Final = {
    18: "One-Stop-Shop sale: taxed in the customer's country (OSS)",
    19: "One-Stop-Shop sale: taxed in the customer's country (OSS)",
    20: "One-Stop-Shop sale: taxed in the customer's country (OSS)",
    15: "not taxable (e.g. a pass-through item)",
    16: "not taxable (e.g. a pass-through item)",
    22: "not taxable (e.g. a pass-through item)",
}


def _revenue(rule: int, rate: Decimal, net: Decimal, tax: Decimal) -> Verdict:
    if rule in _PLAIN:
        return Verdict((Placement(_PLAIN[rule], net, ZERO),))
    if rule == 1:
        return _taxable(rate, net, tax)
    if rule in _NOT_IN_RETURN:
        return Verdict(outside=_NOT_IN_RETURN[rule])
    if rule == 11:
        return Verdict(unclassified="small-business rule §19: no VAT is charged or declared")
    return Verdict(unclassified=f"tax rule {rule} is not a rule for sales")


def taxed_at_home(rate: Decimal, gross: Decimal) -> Placement:
    """:returns: a supply invoiced without VAT that is taxable in Germany after all (an
    intra-EU supply without the buyer's VAT id, §6a(1) S. 1 no. 4 UStG): the VAT is part of
    what the buyer pays (§10(1) S. 2 UStG), so base and tax are taken out of the invoiced
    amount, at the position's rate or 19 % where it shows none."""
    used = rate if rate in _TAXABLE else RATE_19
    base = cents(gross * HUNDRED / (HUNDRED + used))
    return Placement(_TAXABLE[used], base, gross - base)


def _taxable(rate: Decimal, net: Decimal, tax: Decimal) -> Verdict:
    if rate in _TAXABLE:
        return Verdict((Placement(_TAXABLE[rate], net, tax),))
    if rate > ZERO:
        return Verdict((Placement("35/36", net, tax),))
    return Verdict(unclassified="taxable sales rule 1 at 0 %: which exemption applies?")


def _expense(rule: int, rate: Decimal, net: Decimal, tax: Decimal, text: str | None) -> Verdict:
    if rule == 9:
        if tax == ZERO:
            return Verdict(outside="no input tax on it (0 %)")
        return Verdict((Placement("66", None, tax),))
    if rule == 8:
        return _acquisition(rate, net)
    if rule in (12, 13, 14):
        used = rate if rate > ZERO else REVERSE_CHARGE_RATE
        owed = cents(net * used / HUNDRED)
        box = "46/47" if rule == 14 else "73/74" if is_13b_2_3(text) else "84/85"
        placed = [Placement(box, net, owed)]
        if rule != 13:  # 13: reverse charge without input tax deduction
            placed.append(Placement("67", None, owed))
        return Verdict(tuple(placed))
    if rule in (10, 16):
        return Verdict(outside="no input tax deduction / not taxable")
    return Verdict(unclassified=f"tax rule {rule} is not a rule for expenses")


def _acquisition(rate: Decimal, net: Decimal) -> Verdict:
    if rate not in (RATE_19, RATE_7):
        return Verdict(unclassified=f"intra-EU acquisition at {rate} %: which rate applies?")
    owed = cents(net * rate / HUNDRED)
    box = "89" if rate == RATE_19 else "93"
    return Verdict((Placement(box, net, owed), Placement("61", None, owed)))

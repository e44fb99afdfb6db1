"""What the create and finalize previews of a receipt say about VAT owed as a buyer
(bookkeeping 2.0):

- a receipt under reverse charge or as an intra-EU acquisition (tax rules 8, 12, 13, 14): the tax
  the company owes and whether it is deductible ("§13b: you owe 19 % = 57.00 EUR …");
- a foreign supplier's receipt entered at 0 % under an ordinary rule: a warning where the VAT
  return would place it, by the rule the return applies (:func:`.abroad.placement`).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

import msgspec

from sevdesk_mcp.domain.money import HUNDRED, ZERO, cents
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.domain.receipts.abroad import ORDINARY_RULES, Entered, Position, placement
from sevdesk_mcp.domain.records import read_raw
from sevdesk_mcp.safety.preview import Fact, Plain, Said, amount, fact, say
from sevdesk_mcp.sevdesk import wire

REVERSE_CHARGE_RATE: Final = Decimal(19)  # sevDesk's rules 8, 12-14 say "0% (19%)"
ACQUISITION: Final = 8
_ACQUISITION: Final = Said("§1a intra-EU acquisition", "§1a innergemeinschaftlicher Erwerb")
_REVERSE: Final = Said(
    "§13b reverse charge", "§13b Steuerschuld des Leistungsempfängers (Reverse Charge)"
)
_REVERSE_EU: Final = Said(
    "§13b reverse charge (EU service)",
    "§13b Steuerschuld des Leistungsempfängers (sonstige Leistung aus der EU)",
)
# tax rule: (what it is, the box of the tax owed, the box of its deduction or None)
OWED: Final[dict[int, tuple[Said, str, str | None]]] = {
    8: (_ACQUISITION, "89/93", "61"),
    12: (_REVERSE, "84/85", "67"),
    13: (_REVERSE, "84/85", None),
    14: (_REVERSE_EU, "46/47", "67"),
}
# the evidence of abroad.placement, in German too
_EVIDENCE: Final = (
    (re.compile(r"the supplier's VAT id (\S+)"), "the supplier's VAT id {0}",
     "die USt-IdNr. {0} des Lieferanten"),
    (re.compile(r"paid to the IBAN (\S+)"), "paid to the IBAN {0}", "gezahlt an die IBAN {0}"),
    (re.compile(r"the supplier's country (\S+)"), "the supplier's country {0}",
     "das Land {0} des Lieferanten"),
    (re.compile(r"its text names reverse charge"), "its text names reverse charge",
     "sein Text nennt Reverse Charge"),
)  # fmt: skip


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """One position as the checks read it: its sums, text and checked booking account."""

    net: Decimal
    tax: Decimal
    rate: Decimal
    text: str | None
    account_id: int
    account_number: str


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """The facts of a receipt the checks read: its tax rule, supplier (a contact or a name),
    number and positions."""

    rule: int
    supplier_id: int | None
    party: str
    number: str | None
    rows: list[Row]


class BuyerNotes(msgspec.Struct, frozen=True, kw_only=True):
    """What a receipt's preview adds about VAT owed as a buyer: facts, and warnings to put
    first."""

    facts: list[Fact] = msgspec.field(default_factory=list)
    warnings: list[Said] = msgspec.field(default_factory=list)


async def buyer_notes(client: SevdeskPort, receipt: Receipt) -> BuyerNotes:
    """:returns: the VAT the company owes as the buyer (reverse charge, intra-EU acquisition),
    else the warning for a foreign receipt entered without reverse charge, else nothing.

    :raises UpstreamError: if the supplier cannot be read.
    """
    owed = owed_fact(receipt)
    if owed is not None:
        return BuyerNotes(facts=[owed])
    abroad = await foreign_warning(client, receipt)
    return BuyerNotes(warnings=[abroad] if abroad else [])


def owed_fact(receipt: Receipt) -> Fact | None:
    """:returns: the preview's line about the VAT the company owes as the buyer, for a receipt
    under reverse charge or as an intra-EU acquisition; ``None`` otherwise."""
    found = OWED.get(receipt.rule)
    if found is None:
        return None
    what, box, deduction = found
    rate = next((r.rate for r in receipt.rows if r.rate > ZERO), REVERSE_CHARGE_RATE)
    if receipt.rule == ACQUISITION:
        box = "89" if rate == REVERSE_CHARGE_RATE else "93"
    owed = sum(
        (cents(r.net * (r.rate or REVERSE_CHARGE_RATE) / HUNDRED) for r in receipt.rows), ZERO
    )
    deducted = (
        say(
            "deductible as input tax (box {0}) unless the company is a small business",
            "als Vorsteuer abziehbar (Kennzahl {0}), außer bei Kleinunternehmern",
            deduction,
        )
        if deduction
        else say("not deductible (tax rule 13)", "nicht abziehbar (Steuerregel 13)")
    )
    owes = say(
        "{0}: you owe {1} % = {2} (box {3}), {4}",
        "{0}: Sie schulden {1} % = {2} (Kennzahl {3}), {4}",
        what,
        f"{rate.normalize():f}",
        amount(owed),
        box,
        deducted,
    )
    return fact("VAT you owe", "Umsatzsteuer, die Sie schulden", owes)


async def foreign_warning(client: SevdeskPort, receipt: Receipt) -> Said | None:
    """:returns: the warning for a receipt at 0 % under an ordinary rule whose supplier or
    text points abroad, where the VAT return would place it; ``None`` otherwise.

    :raises UpstreamError: if the supplier cannot be read.
    """
    zero = [row for row in receipt.rows if row.tax == ZERO]
    if receipt.rule not in ORDINARY_RULES or not zero:
        return None
    vat_id = None
    if receipt.supplier_id is not None:
        raw = await read_raw(client, "Contact", receipt.supplier_id)
        vat_id = wire.parse(raw, wire.Contact).vatNumber
    found = placement(_entered(receipt, vat_id), deductible=True)
    if found is None:
        return None
    return say(
        "Entered at 0 % under tax rule {0}, but {1}: a receipt of a foreign business belongs in "
        "boxes {2} of the VAT return (base {3}, tax {4} at 19 %; box 67 only if you may deduct "
        "input tax). Cancel and enter it with tax rule {5} in sevDesk (reverse charge, §13b "
        "UStG), or approve if you know better.",
        "Mit 0 % unter Steuerregel {0} erfasst, aber {1}: Ein Beleg eines ausländischen "
        "Unternehmens gehört in die Kennzahlen {2} der Umsatzsteuer-Voranmeldung "
        "(Bemessungsgrundlage {3}, Steuer {4} zu 19 %; Kennzahl 67 nur, wenn Sie Vorsteuer "
        "abziehen dürfen). Brechen Sie ab und erfassen Sie ihn in sevDesk mit Steuerregel {5} "
        "(Steuerschuld des Leistungsempfängers, §13b UStG), oder geben Sie frei, wenn Sie es "
        "besser wissen.",
        receipt.rule,
        _evidence(found.evidence),
        _boxes(found.boxes),
        amount(found.base),
        amount(found.tax),
        str(found.rule),
    )


def _evidence(evidence: list[str]) -> Said:
    """:returns: the evidence of :func:`.abroad.placement` in both languages, joined by commas."""
    said = [_one_evidence(text) for text in evidence]
    marks = ", ".join(f"{{{i}}}" for i in range(len(said)))
    return say(marks, marks, *said)


def _one_evidence(text: str) -> Said | Plain:
    for pattern, english, german in _EVIDENCE:
        found = pattern.fullmatch(text)
        if found:
            return say(english, german, *found.groups())
    return Plain(text)


def _boxes(boxes: str) -> Said:
    """:returns: boxes such as ``46/47 and 67`` in both languages."""
    parts = boxes.split(" and ")
    if len(parts) == 1:
        return say("{0}", "{0}", boxes)
    return say("{0} and {1}", "{0} und {1}", parts[0], " and ".join(parts[1:]))


def _entered(receipt: Receipt, vat_id: str | None) -> Entered:
    return Entered(
        rule=receipt.rule,
        number=receipt.number,
        party=receipt.party,
        vat_id=vat_id,
        positions=[Position(r.net, r.tax, r.account_number, r.text) for r in receipt.rows],
    )

"""Which sevDesk tax rule (bookkeeping 2.0) a received e-invoice takes, from its VAT
categories and the seller's country; reverse charge and intra-EU cases are named."""

from __future__ import annotations

from typing import Final

import msgspec

from sevdesk_mcp.safety.preview import Said

EU: Final = frozenset(
    [
        "AT",
        "BE",
        "BG",
        "CY",
        "CZ",
        "DK",
        "EE",
        "ES",
        "FI",
        "FR",
        "GR",
        "EL",
        "HR",
        "HU",
        "IE",
        "IT",
        "LT",
        "LU",
        "LV",
        "MT",
        "NL",
        "PL",
        "PT",
        "RO",
        "SE",
        "SI",
        "SK",
    ]
)
DOMESTIC_INPUT_TAX: Final = 9


class TaxCase(msgspec.Struct, frozen=True):
    """A sevDesk tax rule for an incoming invoice and the words for it."""

    rule_id: int
    case: str
    de: str

    @property
    def said(self) -> Said:
        """:returns: the words for the case in both languages."""
        return Said(self.case, self.de)


def tax_case(category: str, seller_country: str | None) -> TaxCase:
    """:returns: the tax rule for a VAT category (EN 16931 code) on a received invoice."""
    country = (seller_country or "DE").upper()
    where = "DE" if country == "DE" else "EU" if country in EU else "NONEU"
    if category in {"S", "Z"} and where != "DE":
        return TaxCase(
            10,
            f"foreign VAT from a seller in {country}: not deductible in Germany",
            f"ausländische Umsatzsteuer eines Verkäufers in {country}: in Deutschland nicht "
            "als Vorsteuer abziehbar",
        )
    if category == "AE":
        return _REVERSE_CHARGE[where]
    return _CASES.get(category, _NOT_SUBJECT)


_DOMESTIC: Final = TaxCase(
    DOMESTIC_INPUT_TAX,
    "domestic: deductible input tax (Vorsteuer)",
    "Inland: abziehbare Vorsteuer",
)
_NOT_SUBJECT: Final = TaxCase(
    16,
    "not subject to German VAT (category O or G): no input tax",
    "nicht der deutschen Umsatzsteuer unterworfen (Kategorie O oder G): keine Vorsteuer",
)
_CASES: Final = {
    "S": _DOMESTIC,
    "Z": _DOMESTIC,
    "E": TaxCase(
        DOMESTIC_INPUT_TAX,
        "exempt from VAT (e.g. § 4 or § 19 UStG): no input tax",
        "umsatzsteuerfrei (z. B. § 4 oder § 19 UStG): keine Vorsteuer",
    ),
    "K": TaxCase(
        8,
        "intra-EU acquisition (innergemeinschaftlicher Erwerb): you owe the VAT",
        "innergemeinschaftlicher Erwerb: Sie schulden die Umsatzsteuer",
    ),
}
_REVERSE_CHARGE: Final = {
    "DE": TaxCase(
        12,
        "reverse charge § 13b (2) UStG: you owe the VAT and deduct it",
        "Steuerschuld des Leistungsempfängers, § 13b Abs. 2 UStG: Sie schulden die "
        "Umsatzsteuer und ziehen sie als Vorsteuer ab",
    ),
    "EU": TaxCase(
        14,
        "reverse charge § 13b (1) UStG, service from the EU: you owe the VAT",
        "Steuerschuld des Leistungsempfängers, § 13b Abs. 1 UStG, Leistung aus der EU: Sie "
        "schulden die Umsatzsteuer",
    ),
    "NONEU": TaxCase(
        12,
        "reverse charge § 13b (2) UStG, service from outside the EU",
        "Steuerschuld des Leistungsempfängers, § 13b Abs. 2 UStG, Leistung von außerhalb der EU",
    ),
}

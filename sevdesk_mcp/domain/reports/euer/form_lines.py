"""The Anlage EÜR lines per year, as data, with their source.

Kennzahlen (Kz, the ELSTER field numbers) change rarely; line numbers move from year to year.
A line is ``secondary`` where its number (and Kz) was found in at least two independent
public sources that cite the BMF form and ELSTER's instructions of the year; everything else is
``unconfirmed`` and says so in every answer. Nothing here was read from the BMF PDF itself:
check a year against the form before filing (``docs/tax.md``, "Profit and loss").
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.domain.reports.euer.model import FormLine

SECONDARY: Final = "secondary"
LINE_ONLY: Final = "line secondary, Kz unconfirmed"
UNCONFIRMED: Final = "unconfirmed"

LABELS: Final = {
    "small_business_income": "Betriebseinnahmen als umsatzsteuerlicher Kleinunternehmer",
    "taxable_income": "Umsatzsteuerpflichtige Betriebseinnahmen (netto)",
    "tax_free_income": (
        "Umsatzsteuerfreie, nicht umsatzsteuerbare Betriebseinnahmen und solche, für die der "
        "Leistungsempfänger die Umsatzsteuer schuldet"
    ),
    "vat_received": "Vereinnahmte Umsatzsteuer",
    "vat_refunded": "Vom Finanzamt erstattete und ggf. verrechnete Umsatzsteuer",
    "income_total": "Summe Betriebseinnahmen",
    "goods": "Waren, Rohstoffe und Hilfsstoffe einschließlich der Nebenkosten",
    "external_services": "Bezogene Fremdleistungen",
    "staff": "Ausgaben für eigenes Personal",
    "depreciation": "AfA auf bewegliche Wirtschaftsgüter",
    "gwg": "Aufwendungen für geringwertige Wirtschaftsgüter nach § 6 Abs. 2 EStG",
    "pool": "Auflösung Sammelposten nach § 6 Abs. 2a EStG",
    "rent": "Miete/Pacht für Geschäftsräume und betrieblich genutzte Grundstücke",
    "telecom": "Aufwendungen für Telekommunikation",
    "travel": "Übernachtungs- und Reisenebenkosten bei Geschäftsreisen",
    "advice": "Rechts- und Steuerberatung, Buchführung",
    "insurance_fees": "Beiträge, Gebühren, Abgaben und Versicherungen",
    "advertising": "Werbekosten",
    "car": "Kraftfahrzeugkosten",
    "other": "Übrige unbeschränkt abziehbare Betriebsausgaben",
    "input_tax": "Gezahlte Vorsteuerbeträge",
    "vat_paid": "An das Finanzamt gezahlte und ggf. verrechnete Umsatzsteuer",
    "gifts": "Geschenke (abziehbar)",
    "gifts_apart": "Geschenke (nicht abziehbar)",
    "meals": "Bewirtungsaufwendungen (abziehbar, 70 %)",
    "meals_apart": "Bewirtungsaufwendungen (nicht abziehbar, 30 %)",
    "per_diem": "Verpflegungsmehraufwendungen",
    "expenses_total": "Summe Betriebsausgaben",
}
KZ: Final = {
    "small_business_income": "111", "taxable_income": "112", "tax_free_income": "103",
    "vat_received": "140", "vat_refunded": "141", "income_total": "159", "goods": "100",
    "external_services": "110", "staff": "120", "depreciation": "130", "gwg": "132",
    "pool": "137", "rent": "150", "telecom": "280", "travel": "221", "advice": "194",
    "insurance_fees": "223", "advertising": "224", "other": "183", "input_tax": "185",
    "vat_paid": "186", "gifts": "174", "gifts_apart": "164", "meals": "175",
    "meals_apart": "165", "expenses_total": "199",
}  # fmt: skip
_KZ_FOUND: Final = frozenset({"140", "132", "185", "186", "165", "175"})

# key -> (line, status) per year; keys without a line have none known.
_LINES_2025: Final = {
    "small_business_income": 12, "taxable_income": 15, "tax_free_income": 16,
    "vat_received": 17, "vat_refunded": 18, "income_total": 23, "goods": 27,
    "external_services": 29, "depreciation": 33, "gwg": 36, "telecom": 43, "travel": 44,
    "advice": 46, "insurance_fees": 49, "advertising": 54, "input_tax": 57, "vat_paid": 58,
    "other": 60, "gifts": 62, "gifts_apart": 62, "meals": 63, "meals_apart": 63,
    "per_diem": 64, "expenses_total": 75,
}  # fmt: skip
# Line numbers of 2025 found in two or more independent sources.
_AGREED_2025: Final = frozenset({
    "taxable_income", "vat_received", "vat_refunded", "external_services", "gwg", "telecom",
    "travel", "input_tax", "vat_paid", "meals", "meals_apart", "expenses_total",
})  # fmt: skip
_LINES_2026: Final = {
    "small_business_income": 12, "taxable_income": 15, "tax_free_income": 16,
    "vat_received": 17, "vat_refunded": 18, "goods": 29, "external_services": 30, "gwg": 37,
    "telecom": 44, "travel": 45, "advice": 47, "insurance_fees": 50, "advertising": 55,
    "input_tax": 58, "vat_paid": 59, "other": 61, "meals": 64, "meals_apart": 64,
    "per_diem": 65,
}  # fmt: skip
SOURCES: Final = {
    2025: (
        "Anlage EÜR 2025 (BMF-Schreiben vom 29.08.2025, IV C 6 - S 2142/00023/010/001) and "
        "ELSTER's 'Anleitung zur Anlage EÜR 2025'; line numbers as cited by independent "
        "open-source implementations of the form, not read from the PDF here"
    ),
    2026: (
        "unconfirmed: Anlage EÜR 2026 (BMF, published 2026) as cited by one open-source "
        "implementation; Kennzahlen as of 2025. Check every line against the form"
    ),
}


def form_lines(year: int) -> dict[str, FormLine]:
    """:returns: the lines of the Anlage EÜR of ``year`` by key; for a year without data, the
    labels and Kennzahlen without line numbers, all ``unconfirmed``."""
    lines = {2025: _LINES_2025, 2026: _LINES_2026}.get(year, {})
    return {key: _line(year, key, lines.get(key)) for key in LABELS}


def source_of(year: int) -> str:
    """:returns: the source of the lines of ``year``."""
    return SOURCES.get(year, f"unconfirmed: no Anlage EÜR line data for {year}")


def _line(year: int, key: str, number: int | None) -> FormLine:
    kz = KZ.get(key)
    status = UNCONFIRMED
    if year == 2025 and key in _AGREED_2025:
        status = SECONDARY if kz is None or kz in _KZ_FOUND else LINE_ONLY
    return FormLine(label=LABELS[key], line=number, kz=kz, status=status)

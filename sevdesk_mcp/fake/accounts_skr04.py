"""The SKR04 booking accounts of the fake: the same cases as SKR03 under SKR04's numbers.

A company chooses its chart (sevDesk offers both); a fake made with ``chart="skr04"`` serves
these. Ids are invented: 10000 plus the account number, so they never meet an SKR03 id. Names
follow the DATEV SKR04 chart; the cases are ``german-tax-rules.md`` §3.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.fake.account_rules import (
    BOTH,
    EXPENSE_GOODS,
    EXPENSE_NO_VAT,
    EXPENSE_SERVICES,
    EXPENSE_STANDARD,
    NOT_TAXABLE,
    PURCHASES_7,
    PURCHASES_19,
    REVENUE_7,
    REVENUE_19,
    REVENUE_ANY,
    REVENUE_EU,
    REVENUE_EXEMPT,
    Account,
    E,
    R,
    Rules,
)

ID_OFFSET: Final = 10_000


def _a(
    number: str, name: str, kinds: tuple[str, ...], rules: Rules, description: str | None = None
) -> Account:
    return Account(ID_OFFSET + int(number), number, name, description, kinds, rules)


SKR04_ACCOUNTS: Final = (
    _a("0135", "EDV-Software", E, EXPENSE_SERVICES),
    _a("0440", "Maschinen", E, EXPENSE_STANDARD),
    _a("0650", "Büroeinrichtung", E, EXPENSE_GOODS),
    _a("0670", "Geringwertige Wirtschaftsgüter", E, EXPENSE_GOODS, "bis 800 EUR netto"),
    _a("0675", "Wirtschaftsgüter Sammelposten", E, EXPENSE_GOODS,
       "über 250 bis 1.000 EUR netto"),
    _a("0690", "Sonstige Betriebs- und Geschäftsausstattung", E, EXPENSE_GOODS),
    _a("1525", "Kautionen", BOTH, NOT_TAXABLE),
    _a("1600", "Kasse", (), ()),
    _a("1800", "Bank", (), ()),
    _a("1370", "Durchlaufende Posten", BOTH, NOT_TAXABLE),
    _a("3820", "Umsatzsteuer-Vorauszahlungen", (), ()),
    _a("3841", "Umsatzsteuer Vorjahr", (), ()),
    _a("4100", "Steuerfreie Umsätze §4 Nr. 8 ff. UStG", R, REVENUE_EXEMPT),
    _a("4125", "Steuerfreie innergemeinschaftliche Lieferungen §4 Nr. 1b UStG", R, REVENUE_EU),
    _a("4200", "Erlöse", R, REVENUE_ANY),
    _a("4300", "Erlöse 7 % USt", R, REVENUE_7),
    _a("4400", "Erlöse 19 % USt", R, REVENUE_19),
    _a("5300", "Wareneingang 7 % Vorsteuer", E, PURCHASES_7),
    _a("5400", "Wareneingang 19 % Vorsteuer", E, PURCHASES_19),
    _a("5900", "Fremdleistungen", E, EXPENSE_STANDARD),
    _a("6260", "Sofortabschreibung geringwertiger Wirtschaftsgüter", E, EXPENSE_GOODS),
    _a("6300", "Sonstige betriebliche Aufwendungen", E, EXPENSE_STANDARD),
    _a("6310", "Miete", E, EXPENSE_SERVICES, "z.B. Büro- und Werkstattmiete"),
    _a("6325", "Gas, Strom, Wasser", E, EXPENSE_STANDARD),
    _a("6400", "Versicherungen", E, EXPENSE_NO_VAT),
    _a("6460", "Reparaturen und Instandhaltung von technischen Anlagen und Maschinen", E,
       EXPENSE_STANDARD),
    _a("6495", "Wartungskosten für Hard- und Software", E, EXPENSE_STANDARD),
    _a("6520", "Kfz-Versicherungen", E, EXPENSE_NO_VAT),
    _a("6530", "Laufende Kfz-Betriebskosten", E, EXPENSE_STANDARD, "z.B. Kraftstoff, Wartung"),
    _a("6540", "Kfz-Reparaturen", E, EXPENSE_STANDARD),
    _a("6600", "Werbekosten", E, EXPENSE_SERVICES),
    _a("6610", "Geschenke abzugsfähig", E, EXPENSE_STANDARD),
    _a("6620", "Geschenke nicht abzugsfähig", E, EXPENSE_STANDARD),
    _a("6640", "Bewirtungskosten", E, EXPENSE_SERVICES),
    _a("6644", "Nicht abzugsfähige Bewirtungskosten", E, EXPENSE_SERVICES),
    _a("6650", "Reisekosten Arbeitnehmer", E, EXPENSE_SERVICES),
    _a("6660", "Reisekosten Arbeitnehmer Übernachtungsaufwand", E, EXPENSE_SERVICES),
    _a("6663", "Reisekosten Arbeitnehmer Fahrtkosten", E, EXPENSE_SERVICES),
    _a("6664", "Reisekosten Arbeitnehmer Verpflegungsmehraufwand", E, EXPENSE_NO_VAT),
    _a("6673", "Reisekosten Unternehmer Fahrtkosten", E, EXPENSE_SERVICES),
    _a("6674", "Reisekosten Unternehmer Verpflegungsmehraufwand", E, EXPENSE_NO_VAT),
    _a("6680", "Reisekosten Unternehmer Übernachtungsaufwand", E, EXPENSE_SERVICES),
    _a("6800", "Porto", E, EXPENSE_SERVICES),
    _a("6805", "Telefon", E, EXPENSE_STANDARD),
    _a("6810", "Internet", E, EXPENSE_STANDARD),
    _a("6815", "Bürobedarf", E, EXPENSE_GOODS),
    _a("6820", "Zeitschriften, Bücher", E, EXPENSE_GOODS),
    _a("6825", "Rechts- und Beratungskosten", E, EXPENSE_STANDARD),
    _a("6827", "Abschluss- und Prüfungskosten", E, EXPENSE_STANDARD)._replace(hidden=True),
    _a("6830", "Buchführungskosten", E, EXPENSE_STANDARD)._replace(hidden=True),
    _a("6837", "Aufwendungen für die zeitlich befristete Überlassung von Rechten "
       "(Lizenzen, Konzessionen)", E, EXPENSE_SERVICES, "z.B. Software-Abonnements, Lizenzen"),
    _a("6850", "Sonstiger Betriebsbedarf", E, EXPENSE_STANDARD),
    _a("6855", "Nebenkosten des Geldverkehrs", E, EXPENSE_SERVICES,
       "z.B. Kontogebühren und Gebühren für Kreditkarten"),
    _a("7685", "Kfz-Steuer", E, EXPENSE_NO_VAT),
)  # fmt: skip

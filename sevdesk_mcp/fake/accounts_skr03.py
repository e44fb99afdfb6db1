"""The SKR03 booking accounts of the fake (``docs/sevdesk-api.md`` §3.5).

Ids are per chart in sevDesk; three are the measured ones (4285 = 4970, 2571 = 1525,
2578 = 1590), the others are invented (the accounts added for the booking suggestions,
``german-tax-rules.md`` §3, from 3501 on). Names follow the DATEV SKR03 chart.
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
)

A = Account
_GWG: Final = "bis 800 EUR netto"
_RENT: Final = "z.B. Büro- und Werkstattmiete"
_FUEL: Final = "z.B. Kraftstoff, Wartung"
_FEES: Final = "z.B. Kontogebühren und Gebühren für Kreditkarten"
_LICENCES: Final = "z.B. Software-Abonnements, Lizenzen"

SKR03_ACCOUNTS: Final = (
    A(2003, "0027", "EDV-Software", None, E, EXPENSE_SERVICES),
    A(2010, "0210", "Maschinen", None, E, EXPENSE_STANDARD),
    A(2042, "0420", "Büroeinrichtung", None, E, EXPENSE_GOODS),
    A(2048, "0480", "Geringwertige Wirtschaftsgüter", _GWG, E, EXPENSE_GOODS),
    A(2049, "0485", "Wirtschaftsgüter Sammelposten", "über 250 bis 1.000 EUR netto", E,
      EXPENSE_GOODS),
    A(2050, "0490", "Sonstige Betriebs- und Geschäftsausstattung", None, E, EXPENSE_GOODS),
    A(2100, "1000", "Kasse", None, (), ()),
    A(2120, "1200", "Bank", None, (), ()),
    A(2571, "1525", "Kautionen", None, BOTH, NOT_TAXABLE),
    A(2578, "1590", "Durchlaufende Posten", None, BOTH, NOT_TAXABLE),
    A(2780, "1780", "Umsatzsteuer-Vorauszahlungen", None, (), ()),
    A(2790, "1790", "Umsatzsteuer Vorjahr", None, (), ()),
    A(3110, "3100", "Fremdleistungen", None, E, EXPENSE_STANDARD),
    A(3130, "3300", "Wareneingang 7 % Vorsteuer", None, E, PURCHASES_7),
    A(3140, "3400", "Wareneingang 19 % Vorsteuer", None, E, PURCHASES_19),
    A(3421, "4210", "Miete", _RENT, E, EXPENSE_SERVICES),
    A(3424, "4240", "Gas, Strom, Wasser", None, E, EXPENSE_STANDARD),
    A(3436, "4360", "Versicherungen", None, E, EXPENSE_NO_VAT),
    A(3451, "4510", "Kfz-Steuer", None, E, EXPENSE_NO_VAT),
    A(3452, "4520", "Kfz-Versicherungen", None, E, EXPENSE_NO_VAT),
    A(3453, "4530", "Laufende Kfz-Betriebskosten", _FUEL, E, EXPENSE_STANDARD),
    A(3454, "4540", "Kfz-Reparaturen", None, E, EXPENSE_STANDARD),
    A(3460, "4600", "Werbekosten", None, E, EXPENSE_SERVICES),
    A(3463, "4630", "Geschenke abzugsfähig", None, E, EXPENSE_STANDARD),
    A(3464, "4635", "Geschenke nicht abzugsfähig", None, E, EXPENSE_STANDARD),
    A(3465, "4650", "Bewirtungskosten", None, E, EXPENSE_SERVICES),
    A(3467, "4654", "Nicht abzugsfähige Bewirtungskosten", None, E, EXPENSE_SERVICES),
    A(3466, "4660", "Reisekosten Arbeitnehmer", None, E, EXPENSE_SERVICES),
    A(3501, "4663", "Reisekosten Arbeitnehmer Fahrtkosten", None, E, EXPENSE_SERVICES),
    A(3502, "4664", "Reisekosten Arbeitnehmer Verpflegungsmehraufwand", None, E,
      EXPENSE_NO_VAT),
    A(3503, "4666", "Reisekosten Arbeitnehmer Übernachtungsaufwand", None, E,
      EXPENSE_SERVICES),
    A(3504, "4673", "Reisekosten Unternehmer Fahrtkosten", None, E, EXPENSE_SERVICES),
    A(3505, "4674", "Reisekosten Unternehmer Verpflegungsmehraufwand", None, E,
      EXPENSE_NO_VAT),
    A(3506, "4676", "Reisekosten Unternehmer Übernachtungsaufwand", None, E,
      EXPENSE_SERVICES),
    A(3480, "4800", "Reparaturen und Instandhaltung von technischen Anlagen und Maschinen",
      None, E, EXPENSE_STANDARD),
    A(3486, "4806", "Wartungskosten für Hard- und Software", None, E, EXPENSE_STANDARD),
    A(3507, "4855", "Sofortabschreibung geringwertiger Wirtschaftsgüter", None, E,
      EXPENSE_GOODS),
    A(3490, "4900", "Sonstige betriebliche Aufwendungen", None, E, EXPENSE_STANDARD),
    A(3491, "4910", "Porto", None, E, EXPENSE_SERVICES),
    A(3492, "4920", "Telefon", None, E, EXPENSE_STANDARD),
    A(3493, "4925", "Internet", None, E, EXPENSE_STANDARD),
    A(3494, "4930", "Bürobedarf", None, E, EXPENSE_GOODS),
    A(3495, "4940", "Zeitschriften, Bücher", None, E, EXPENSE_GOODS),
    A(3496, "4950", "Rechts- und Beratungskosten", None, E, EXPENSE_STANDARD),
    A(3497, "4955", "Buchführungskosten", None, E, EXPENSE_STANDARD, True),
    A(3498, "4957", "Abschluss- und Prüfungskosten", None, E, EXPENSE_STANDARD, True),
    A(3508, "4964", "Aufwendungen für die zeitlich befristete Überlassung von Rechten "
      "(Lizenzen, Konzessionen)", _LICENCES, E, EXPENSE_SERVICES),
    A(4285, "4970", "Nebenkosten des Geldverkehrs", _FEES, E, EXPENSE_SERVICES),
    A(3499, "4980", "Sonstiger Betriebsbedarf", None, E, EXPENSE_STANDARD),
    A(4310, "8100", "Steuerfreie Umsätze §4 Nr. 8 ff. UStG", None, R, REVENUE_EXEMPT),
    A(4312, "8125", "Steuerfreie innergemeinschaftliche Lieferungen §4 Nr. 1b UStG", None, R,
      REVENUE_EU),
    A(4320, "8200", "Erlöse", None, R, REVENUE_ANY),
    A(4330, "8300", "Erlöse 7 % USt", None, R, REVENUE_7),
    A(4340, "8400", "Erlöse 19 % USt", None, R, REVENUE_19),
)  # fmt: skip

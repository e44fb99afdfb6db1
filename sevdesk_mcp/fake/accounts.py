"""The booking accounts (AccountDatev, SKR03 subset) and the receipt guidance built from them.

Ids are per chart in sevDesk; three are the measured ones (4285 = 4970, 2571 = 1525,
2578 = 1590, ``docs/sevdesk-api.md`` §3.5), the others are invented. Hidden accounts are left
out of GET /AccountDatev and of the guidance but reachable by id (Q42). Guidance items carry
**ints** for ids, unlike every other object (§3.6, Q8).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from sevdesk_mcp.fake.reference import tax_rule_codes
from sevdesk_mcp.jsontypes import JsonObject, JsonValue

EXPENSE: Final = "EXPENSE"
REVENUE: Final = "REVENUE"
ALL_RATES: Final = ("ZERO", "SEVEN", "NINETEEN")

# allowed rules: (tax rule id, tax rates)
_EXPENSE_STANDARD: Final = ((9, ALL_RATES), (12, ("ZERO",)), (13, ("ZERO",)), (14, ("ZERO",)))
_EXPENSE_NO_VAT: Final = ((9, ("ZERO",)), (10, ("ZERO",)))
_NOT_TAXABLE: Final = ((16, ("ZERO",)), (22, ("ZERO",)))
_REVENUE_19: Final = ((1, ("NINETEEN",)),)
_REVENUE_7: Final = ((1, ("SEVEN",)),)
_REVENUE_ANY: Final = ((1, ALL_RATES),)
_REVENUE_EU: Final = ((3, ALL_RATES),)
_REVENUE_EXEMPT: Final = ((4, ("ZERO",)),)

Rules = tuple[tuple[int, tuple[str, ...]], ...]


class Account(NamedTuple):
    """One SKR03 booking account and its guidance."""

    id: int
    number: str
    name: str
    description: str | None
    receipt_types: tuple[str, ...]
    rules: Rules
    hidden: bool = False


ACCOUNTS: Final = (
    Account(2010, "0210", "Maschinen", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(2042, "0420", "Büroeinrichtung", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(
        2048,
        "0480",
        "Geringwertige Wirtschaftsgüter",
        "bis 800 EUR netto",
        (EXPENSE,),
        _EXPENSE_STANDARD,
    ),
    Account(2100, "1000", "Kasse", None, (), ()),
    Account(2120, "1200", "Bank", None, (), ()),
    Account(2571, "1525", "Kautionen", None, (EXPENSE, REVENUE), _NOT_TAXABLE),
    Account(2578, "1590", "Durchlaufende Posten", None, (EXPENSE, REVENUE), _NOT_TAXABLE),
    Account(2780, "1780", "Umsatzsteuer-Vorauszahlungen", None, (), ()),
    Account(2790, "1790", "Umsatzsteuer Vorjahr", None, (), ()),
    Account(3110, "3100", "Fremdleistungen", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3130, "3300", "Wareneingang 7 % Vorsteuer", None, (EXPENSE,), ((9, ("SEVEN",)),)),
    Account(3140, "3400", "Wareneingang 19 % Vorsteuer", None, (EXPENSE,), ((9, ("NINETEEN",)),)),
    Account(3421, "4210", "Miete", "z.B. Büro- und Werkstattmiete", (EXPENSE,), _EXPENSE_STANDARD),
    Account(3424, "4240", "Gas, Strom, Wasser", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3436, "4360", "Versicherungen", None, (EXPENSE,), _EXPENSE_NO_VAT),
    Account(
        3453,
        "4530",
        "Laufende Kfz-Betriebskosten",
        "z.B. Kraftstoff, Wartung",
        (EXPENSE,),
        _EXPENSE_STANDARD,
    ),
    Account(3463, "4630", "Geschenke abzugsfähig", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3464, "4635", "Geschenke nicht abzugsfähig", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3465, "4650", "Bewirtungskosten", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(
        3467, "4654", "Nicht abzugsfähige Bewirtungskosten", None, (EXPENSE,), _EXPENSE_STANDARD
    ),
    Account(3466, "4660", "Reisekosten Arbeitnehmer", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(
        3480,
        "4800",
        "Reparaturen und Instandhaltung von technischen Anlagen und Maschinen",
        None,
        (EXPENSE,),
        _EXPENSE_STANDARD,
    ),
    Account(
        3486,
        "4806",
        "Wartungskosten für Hard- und Software",
        None,
        (EXPENSE,),
        _EXPENSE_STANDARD,
    ),
    Account(
        3490, "4900", "Sonstige betriebliche Aufwendungen", None, (EXPENSE,), _EXPENSE_STANDARD
    ),
    Account(3491, "4910", "Porto", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3492, "4920", "Telefon", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3493, "4925", "Internet", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3494, "4930", "Bürobedarf", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3495, "4940", "Zeitschriften, Bücher", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3496, "4950", "Rechts- und Beratungskosten", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(3497, "4955", "Buchführungskosten", None, (EXPENSE,), _EXPENSE_STANDARD, True),
    Account(
        3498, "4957", "Abschluss- und Prüfungskosten", None, (EXPENSE,), _EXPENSE_STANDARD, True
    ),
    Account(
        4285,
        "4970",
        "Nebenkosten des Geldverkehrs",
        "z.B. Kontogebühren und Gebühren für Kreditkarten",
        (EXPENSE,),
        _EXPENSE_STANDARD,
    ),
    Account(3499, "4980", "Sonstiger Betriebsbedarf", None, (EXPENSE,), _EXPENSE_STANDARD),
    Account(
        4310, "8100", "Steuerfreie Umsätze §4 Nr. 8 ff. UStG", None, (REVENUE,), _REVENUE_EXEMPT
    ),
    Account(
        4312,
        "8125",
        "Steuerfreie innergemeinschaftliche Lieferungen §4 Nr. 1b UStG",
        None,
        (REVENUE,),
        _REVENUE_EU,
    ),
    Account(4320, "8200", "Erlöse", None, (REVENUE,), _REVENUE_ANY),
    Account(4330, "8300", "Erlöse 7 % USt", None, (REVENUE,), _REVENUE_7),
    Account(4340, "8400", "Erlöse 19 % USt", None, (REVENUE,), _REVENUE_19),
)

_BY_ID: Final = {a.id: a for a in ACCOUNTS}
_BY_NUMBER: Final = {a.number: a for a in ACCOUNTS}


def account_by_id(ident: int) -> Account | None:
    """:returns: the account with AccountDatev id ``ident``, hidden or not (Q42)."""
    return _BY_ID.get(ident)


def account_by_number(number: str) -> Account | None:
    """:returns: the account with SKR03 number ``number``."""
    return _BY_NUMBER.get(number)


def account_wire(account: Account) -> JsonObject:
    """:returns: the GET /AccountDatev object (shape UNVERIFIED: the endpoint is undocumented)."""
    return {
        "id": str(account.id),
        "objectName": "AccountDatev",
        "additionalInformation": None,
        "number": account.number,
        "name": account.name,
        "description": account.description,
        "hidden": "1" if account.hidden else "0",
    }


def guidance(account: Account) -> JsonObject:
    """:returns: the ReceiptGuidance item of ``account`` (§3.6: ids are ints here)."""
    codes = tax_rule_codes()
    rules: list[JsonValue] = [
        {
            "name": codes[rule][0],
            "id": rule,
            "description": codes[rule][2],
            "taxRates": list(rates),
        }
        for rule, rates in account.rules
    ]
    return {
        "accountDatevId": account.id,
        "accountNumber": account.number,
        "accountName": account.name,
        "description": account.description,
        "allowedTaxRules": rules,
        "allowedReceiptTypes": list(account.receipt_types),
    }


def guided_accounts(receipt_type: str | None = None) -> list[Account]:
    """:returns: the visible accounts with guidance, optionally only of one receipt type."""
    return [
        a
        for a in ACCOUNTS
        if a.rules and not a.hidden and (receipt_type is None or receipt_type in a.receipt_types)
    ]

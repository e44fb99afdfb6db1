"""Reference data every account has: tax rules, countries, units, categories, keys, methods.

Sources (``docs/sevdesk-api.md``): tax rules §3.4 and the shape of §5.5 (codes for 10, 11 and
18-20 are UNVERIFIED and left ``null``); categories §3.3; communication-way keys §2.2; Unity 1
"Stk" (§2.1). Country ids other than Germany (1), unit ids other than 1 and the payment-method
ids are invented: sevDesk's are per account.
"""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.jsontypes import JsonObject

GERMANY_ID: Final = 1

# (id, code or None, name, description or None (= name), countryContactType)
_TAX_RULES: Final[tuple[tuple[int, str | None, str, str | None, str], ...]] = (
    (1, "USTPFL_UMS_EINN", "Umsatzsteuerpflichtige Umsätze", None, "DE"),
    (2, "AUSFUHREN", "Ausfuhren", None, "NOTEU"),
    (3, "INNERGEM_LIEF", "Innergemeinschaftliche Lieferungen", None, "EU"),
    (4, "STFREIE_UMS_P4", "Steuerfreie Umsätze §4 UStG", None, "DE"),
    (5, "REV_CHARGE_13B_1", "Reverse Charge gem. §13b UStG", None, "DE"),
    (8, "INNERGEM_ERWERB", "Innergemeinschaftliche Erwerbe", None, "EU"),
    (9, "VORST_ABZUGSF_AUFW", "Vorsteuerabziehbare Aufwendungen", None, "DE"),
    (10, None, "Nicht vorsteuerabziehbare Aufwendungen", None, "DE"),
    (11, None, "Steuer nicht erhoben nach §19UStG", None, "DE"),
    (
        12,
        "REV_CHARGE_13B_MIT_VORST_ABZUG_0",
        "Reverse Charge gem. §13b Abs. 2 UStG mit Vorsteuerabzug 0% (19%)",
        "z.B. Dienstleistungen aus dem Drittland, Bauleistungen",
        "NOTEU",
    ),
    (
        13,
        "REV_CHARGE_13B_OHNE_VORST_ABZUG_0",
        "Reverse Charge gem. §13b UStG ohne Vorsteuerabzug 0% (19%)",
        "z.B. Kleinunternehmer, Versicherungsvertreter, Ärzte",
        "DE",
    ),
    (
        14,
        "REV_CHARGE_13B_EU_0",
        "Reverse Charge gem. §13b Abs. 1 EU Umsätze 0% (19%)",
        "z.B. Dienstleistung aus den EU Staaten",
        "EU",
    ),
    (15, "NICHT_STEUERBAR_TAX", "Nicht steuerbar (Steuer)", None, "DE"),
    (16, "NICHT_STEUERBAR_EXPENSE", "Nicht steuerbare Aufwendungen", None, "DE"),
    (17, "NICHT_IM_INLAND_STEUERBAR", "Nicht im Inland steuerbare Leistung", None, "NOTEU"),
    (18, None, "One Stop Shop (goods)", None, "EU"),
    (19, None, "One Stop Shop (electronic service)", None, "EU"),
    (20, None, "One Stop Shop (other service)", None, "EU"),
    (21, "REV_CHARGE_13B_1_USTG", "Reverse Charge gem. §18b UStG", None, "EU"),
    (22, "NICHT_STEUERBAR_REVENUE", "Nicht steuerbare Umsätze", None, "DE"),
)

# (id, code, German name, English name)
_COUNTRIES: Final[tuple[tuple[int, str, str, str], ...]] = (
    (1, "de", "Deutschland", "Germany"),
    (2, "at", "Österreich", "Austria"),
    (3, "ch", "Schweiz", "Switzerland"),
    (4, "fr", "Frankreich", "France"),
    (5, "nl", "Niederlande", "Netherlands"),
    (6, "it", "Italien", "Italy"),
    (7, "gb", "Vereinigtes Königreich", "United Kingdom"),
    (8, "us", "Vereinigte Staaten", "United States"),
    (9, "ie", "Irland", "Ireland"),
)

# (id, name, translationCode, UN/ECE code)
_UNITIES: Final[tuple[tuple[int, str, str, str], ...]] = (
    (1, "Stk", "UNITY_PIECE", "C62"),
    (2, "m²", "UNITY_SQUARE_METER", "MTK"),
    (3, "m", "UNITY_METER", "MTR"),
    (4, "kg", "UNITY_KILOGRAM", "KGM"),
    (7, "pauschal", "UNITY_LUMP_SUM", "LS"),
    (8, "m³", "UNITY_CUBIC_METER", "MTQ"),
    (9, "Std", "UNITY_HOUR", "HUR"),
    (10, "km", "UNITY_KILOMETER", "KMT"),
)

# (id, name, objectType)
_CATEGORIES: Final[tuple[tuple[int, str, str], ...]] = (
    (2, "Lieferant", "Contact"),
    (3, "Kunde", "Contact"),
    (4, "Partner", "Contact"),
    (28, "Interessent", "Contact"),
    (43, "Arbeit", "ContactAddress"),
    (44, "Privat", "ContactAddress"),
    (45, "", "ContactAddress"),
    (47, "Rechnungsanschrift", "ContactAddress"),
    (48, "Lieferanschrift", "ContactAddress"),
    (49, "Abholanschrift", "ContactAddress"),
    (1, "Standard", "Part"),
)

_COMMUNICATION_WAY_KEYS: Final[tuple[tuple[int, str, str], ...]] = (
    (1, "Privat", "COMM_WAY_KEY_PRIVAT"),
    (2, "Arbeit", "COMM_WAY_KEY_WORK"),
    (3, "Fax", "COMM_WAY_KEY_FAX"),
    (4, "Mobil", "COMM_WAY_KEY_MOBILE"),
    (5, " ", "COMM_WAY_KEY_EMPTY"),
    (6, "Autobox", "COMM_WAY_KEY_AUTOBOX"),
    (7, "Newsletter", "COMM_WAY_KEY_NEWSLETTER"),
    (8, "Rechnungsadresse", "COMM_WAY_KEY_INVOICE_ADDRESS"),
)

_PAYMENT_METHODS: Final[tuple[tuple[int, str], ...]] = (
    (21919, "Überweisung"),
    (21920, "Bar"),
    (21921, "Lastschrift"),
    (21922, "PayPal"),
)

TAX_RULE_IDS: Final = frozenset(r[0] for r in _TAX_RULES)
CONTACT_CATEGORY_IDS: Final = frozenset(c[0] for c in _CATEGORIES if c[2] == "Contact")
ADDRESS_CATEGORY_IDS: Final = frozenset(c[0] for c in _CATEGORIES if c[2] == "ContactAddress")
COUNTRY_IDS: Final = frozenset(c[0] for c in _COUNTRIES)
UNITY_IDS: Final = frozenset(u[0] for u in _UNITIES)


def _ref(ident: int, object_name: str) -> JsonObject:
    return {"id": str(ident), "objectName": object_name}


def tax_rules() -> list[JsonObject]:
    """:returns: the GET /TaxRule objects, in the shape of §5.5 (string ids, Q8)."""
    return [
        {
            "id": str(ident),
            "objectName": "TaxRule",
            "additionalInformation": None,
            "name": name,
            "description": description or name,
            "code": code,
            "countryClient": _ref(GERMANY_ID, "StaticCountry"),
            "countryContactType": contact_type,
        }
        for ident, code, name, description, contact_type in _TAX_RULES
    ]


def tax_rule_codes() -> dict[int, tuple[str | None, str, str]]:
    """:returns: by rule id: code, name and the guidance description (name + example, §5.6)."""
    return {
        ident: (code, name, f"{name} {description}" if description else name)
        for ident, code, name, description, _ in _TAX_RULES
    }


def countries() -> list[JsonObject]:
    """:returns: the GET /StaticCountry objects (Germany is 1)."""
    return [
        {
            "id": str(ident),
            "objectName": "StaticCountry",
            "additionalInformation": None,
            "code": code,
            "name": name,
            "nameEn": name_en,
            "translationCode": f"COUNTRY_{code.upper()}",
            "locale": f"{code}_{code.upper()}",
            "priority": "100" if ident == GERMANY_ID else "0",
        }
        for ident, code, name, name_en in _COUNTRIES
    ]


def unities() -> list[JsonObject]:
    """:returns: the GET /Unity objects; 1 is "Stk" with UN/ECE C62 (§2.1)."""
    return [
        {
            "id": str(ident),
            "objectName": "Unity",
            "additionalInformation": None,
            "name": name,
            "translationCode": code,
            "unitySystem": "general",
            "uneceTradeUnitCode": unece,
        }
        for ident, name, code, unece in _UNITIES
    ]


def categories() -> list[JsonObject]:
    """:returns: the GET /Category objects (contact and address categories of §3.3)."""
    return [
        {
            "id": str(ident),
            "objectName": "Category",
            "additionalInformation": None,
            "name": name,
            "objectType": object_type,
            "priority": "0",
            "code": None,
            "color": None,
            "postingAccount": None,
            "type": None,
            "translationCode": None,
        }
        for ident, name, object_type in _CATEGORIES
    ]


def communication_way_keys() -> list[JsonObject]:
    """:returns: the GET /CommunicationWayKey objects (1 private … 8 invoice address)."""
    return [
        {
            "id": str(ident),
            "objectName": "CommunicationWayKey",
            "additionalInformation": None,
            "name": name,
            "translationCode": code,
        }
        for ident, name, code in _COMMUNICATION_WAY_KEYS
    ]


def payment_methods(client: JsonObject) -> list[JsonObject]:
    """:returns: the GET /PaymentMethod objects of the account ``client``."""
    return [
        {
            "id": str(ident),
            "objectName": "PaymentMethod",
            "additionalInformation": None,
            "name": name,
            "text": None,
            "sevClient": client,
        }
        for ident, name in _PAYMENT_METHODS
    ]

"""One-Stop-Shop drafts (§18j UStG, sevDesk tax rules 18 goods, 19 electronic services, 20 other
services, ``docs/sevdesk-api.md`` §3.4): a sale to a consumer in another EU member state, taxed
at that state's rates. sevDesk checks the positions' rates against the country of the document's
address (the spec's ``deliveryAddressCountry``); the same check is made here before anything is
sent, with the reason when it fails.

The rates are the standard, reduced and super-reduced rates of each member state in force in
2026 (the EU Commission's VAT rates table); a state that changes a rate needs this table changed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from sevdesk_mcp.domain.errors import Action, PreconditionError
from sevdesk_mcp.domain.port import SevdeskPort
from sevdesk_mcp.safety.fence import clean, fence
from sevdesk_mcp.safety.preview import Number, Plain, Said
from sevdesk_mcp.sevdesk import wire
from sevdesk_mcp.sevdesk.paths import api_path

RULES: Final = frozenset({18, 19, 20})
HOME: Final = "DE"


def _rates(*values: str) -> frozenset[Decimal]:
    return frozenset(Decimal(v) for v in values)


RATES: Final[dict[str, frozenset[Decimal]]] = {
    "AT": _rates("20", "13", "10"),
    "BE": _rates("21", "12", "6"),
    "BG": _rates("20", "9"),
    "CY": _rates("19", "9", "5", "3"),
    "CZ": _rates("21", "12"),
    "DK": _rates("25"),
    "EE": _rates("24", "13", "9"),
    "EL": _rates("24", "13", "6"),
    "ES": _rates("21", "10", "4"),
    "FI": _rates("25.5", "14", "13.5", "10"),
    "FR": _rates("20", "10", "5.5", "2.1"),
    "HR": _rates("25", "13", "5"),
    "HU": _rates("27", "18", "5"),
    "IE": _rates("23", "13.5", "9", "4.8"),
    "IT": _rates("22", "10", "5", "4"),
    "LT": _rates("21", "9", "5"),
    "LU": _rates("17", "14", "8", "3"),
    "LV": _rates("21", "12", "5"),
    "MT": _rates("18", "7", "5"),
    "NL": _rates("21", "9"),
    "PL": _rates("23", "8", "5"),
    "PT": _rates("23", "13", "6"),
    "RO": _rates("21", "11"),
    "SE": _rates("25", "12", "6"),
    "SI": _rates("22", "9.5", "5"),
    "SK": _rates("23", "19", "5"),
}
"""The VAT rates of the other member states, by ISO code (Greece: EL, as the EU writes it)."""
ALIASES: Final = {"GR": "EL"}


async def country_code(client: SevdeskPort, country_id: int | None) -> str:
    """:returns: the ISO code of sevDesk country ``country_id`` in capitals (``"AT"``), empty
        if it is unknown.

    :raises UpstreamError: if the country list cannot be read.
    """
    if country_id is None:
        return ""
    page = await client.get_all(api_path("StaticCountry"), max_items=1000)
    for country in wire.parse_all(page.items, wire.Named):
        if country.id == country_id:
            code = clean(country.code or "").upper()
            # a code that is no two letters is none: it could only be echoed, never matched
            return ALIASES.get(code, code) if len(code) == 2 and code.isalpha() else ""
    return ""


def check(rule_id: int, rates: list[Decimal], code: str, vat_number: str | None) -> Said:
    """Check a One-Stop-Shop document: a consumer in another member state, that state's rates.

    :returns: what the preview says of it (``AT: 20 %``; ``FI: 25,5 %`` for a German reader).
    :raises PreconditionError: naming what does not fit (the buyer's country, a VAT id, a rate
        not of that country) and what would.
    """
    if code == HOME or code not in RATES:
        where = "in Germany" if code == HOME else f"in {code or 'no known country'}"
        raise PreconditionError(
            f"Tax rule {rule_id} (One-Stop-Shop) is for consumers in another EU member state; "
            f"the contact's address is {where}. Use tax_rule_id 1 for a German buyer (0, 7 or "
            "19 %), 2 or 17 outside the EU, or correct the contact's address (",
            Action.READ_CONTACT,
            " shows it).",
            record=f"tax rule {rule_id}",
            field="tax_rule_id",
        )
    if vat_number and vat_number.strip() not in {"", "-"}:
        raise PreconditionError(
            f"Tax rule {rule_id} (One-Stop-Shop) is for consumers; the contact has the VAT id "
            f"{fence(vat_number)}, so it is a business: use tax_rule_id 3 (intra-EU supply of "
            "goods, 0 %) or 21 (service, reverse charge §18b, 0 %).",
            record=f"tax rule {rule_id}",
            field="tax_rule_id",
        )
    allowed = RATES[code]
    wrong = sorted({r for r in rates if r not in allowed})
    if wrong:
        raise PreconditionError(
            f"{code} has no VAT rate of {_percent(wrong)}; its rates are "
            f"{_percent(sorted(allowed, reverse=True))}. Change the positions' tax_rate.",
            record=f"tax rule {rule_id}",
            field="tax_rate",
        )
    shown = sorted(set(rates), reverse=True)
    template = "{0}: " + ", ".join(f"{{{i}}} %" for i in range(1, len(shown) + 1))
    return Said(template, template, (Plain(code), *(Number(r) for r in shown)))


def foreign_hint(rates: list[Decimal]) -> str:
    """:returns: a sentence on the One-Stop-Shop rules if a rate is one of another member
    state's (20 %), else nothing."""
    if any(r in allowed for r in rates for allowed in RATES.values()):
        return (
            " A rate of another EU state (a consumer there) needs tax_rule_id 18 (goods), "
            "19 (electronic services) or 20 (other services)."
        )
    return ""


def _percent(rates: list[Decimal]) -> str:
    return ", ".join(f"{r.normalize():f} %" for r in rates)

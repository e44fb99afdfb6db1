"""The company's tax facts that sevDesk's API does not hold, as settings: the VAT method, the
small-business status, the legal form, the chart of accounts, the low-value asset option of each
year and the Dauerfristverlängerung (docs/tax.md, "What the figures assume").

Each is ``None`` when unset: the tax tools then take what sevDesk shows (``smallSettlement``, the
company name, the booking accounts) or the statutory default, and every answer says which value
it used and where it came from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, Literal, TypeVar

import msgspec

from sevdesk_mcp.config.values import setting, yes_no
from sevdesk_mcp.errors import ConfigError

VatMethod = Literal["soll", "ist"]
LegalForm = Literal["sole_proprietor", "freelancer", "gbr", "ohg_kg", "corporation"]
Chart = Literal["skr03", "skr04"]
LowValueChoice = Literal["gwg", "pool", "depreciate"]

LEGAL_FORMS: Final[dict[str, LegalForm]] = {
    "sole_proprietor": "sole_proprietor",
    "einzelunternehmen": "sole_proprietor",
    "freelancer": "freelancer",
    "freiberufler": "freelancer",
    "gbr": "gbr",
    "ohg_kg": "ohg_kg",
    "ohg": "ohg_kg",
    "kg": "ohg_kg",
    "corporation": "corporation",
    "gmbh": "corporation",
    "ug": "corporation",
    "ag": "corporation",
}
_METHODS: Final[dict[str, VatMethod]] = {"soll": "soll", "ist": "ist"}
_CHARTS: Final[dict[str, Chart]] = {"skr03": "skr03", "skr04": "skr04"}
_CHOICES: Final[dict[str, LowValueChoice]] = {
    "gwg": "gwg",
    "pool": "pool",
    "depreciate": "depreciate",
}
T = TypeVar("T")
_YEAR_CHOICE: Final = re.compile(r"^(\d{4})\s*[:=]\s*([a-z]+)$")


class TaxSettings(msgspec.Struct, frozen=True, kw_only=True):
    """What the user set; ``None`` where nothing is set.

    :param low_value_assets: the option for low-value assets: ``default`` for every year
        without an own entry in ``by_year``.
    """

    vat_method: VatMethod | None = None
    small_business: bool | None = None
    legal_form: LegalForm | None = None
    chart: Chart | None = None
    low_value_assets: LowValueChoice | None = None
    low_value_by_year: dict[int, LowValueChoice] = msgspec.field(default_factory=dict)
    vat_extension: bool | None = None


def load_tax_settings(env: Mapping[str, str]) -> TaxSettings:
    """:returns: the tax settings of ``env``.

    :raises ConfigError: naming the variable, for a value outside its list.
    """
    default, by_year = _low_value(setting(env, "SEVDESK_LOW_VALUE_ASSETS"))
    return TaxSettings(
        vat_method=_pick(setting(env, "SEVDESK_VAT_METHOD"), _METHODS, "SEVDESK_VAT_METHOD"),
        small_business=yes_no(env, "SEVDESK_SMALL_BUSINESS"),
        legal_form=_pick(setting(env, "SEVDESK_LEGAL_FORM"), LEGAL_FORMS, "SEVDESK_LEGAL_FORM"),
        chart=_pick(setting(env, "SEVDESK_CHART"), _CHARTS, "SEVDESK_CHART"),
        low_value_assets=default,
        low_value_by_year=by_year,
        vat_extension=yes_no(env, "SEVDESK_VAT_EXTENSION"),
    )


def _pick(value: str | None, allowed: Mapping[str, T], name: str) -> T | None:
    if value is None:
        return None
    found = allowed.get(value.strip().lower())
    if found is None:
        raise ConfigError(name, f"use one of {', '.join(sorted(set(map(str, allowed.values()))))}")
    return found


def _low_value(value: str | None) -> tuple[LowValueChoice | None, dict[int, LowValueChoice]]:
    """``gwg``, or per year ``2025:pool,2026:gwg`` (a bare value sets every other year)."""
    name = "SEVDESK_LOW_VALUE_ASSETS"
    if value is None:
        return None, {}
    default: LowValueChoice | None = None
    by_year: dict[int, LowValueChoice] = {}
    for part in (p.strip().lower() for p in value.split(",") if p.strip()):
        dated = _YEAR_CHOICE.match(part)
        choice = _pick(dated.group(2) if dated else part, _CHOICES, name)
        if dated:
            by_year[int(dated.group(1))] = choice or "gwg"
        else:
            default = choice
    return default, by_year

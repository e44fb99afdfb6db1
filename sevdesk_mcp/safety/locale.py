"""How a person reads amounts, days and moments: German or English, Europe/Berlin time.

What the model reads keeps machine forms (``1150.00 EUR``, ``2026-11-24``); what a person reads
(the approval pages, the approval question, progress) uses these: ``1.150,00 €`` and
``24.11.2026`` in German, ``€1,150.00`` and ``24 Nov 2026`` in English, a moment always in
Europe/Berlin with its zone named (``01.12.2026, 15:05 Uhr MEZ``).
"""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal
from typing import Final, Literal
from zoneinfo import ZoneInfo

Lang = Literal["de", "en"]
LANGS: Final[tuple[Lang, ...]] = ("de", "en")
BERLIN: Final = ZoneInfo("Europe/Berlin")
_SYMBOLS: Final = {"EUR": "€", "USD": "$", "GBP": "£", "CHF": "CHF"}
_MONTHS_EN: Final = (
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
)
_ZONES: Final = {"CET": ("MEZ", "CET"), "CEST": ("MESZ", "CEST")}


def as_lang(value: str | None, default: Lang = "en") -> Lang:
    """:returns: ``de`` or ``en`` for a language tag (``de-DE``, ``en_US.UTF-8``), else
    ``default``."""
    tag = (value or "").strip().lower()[:2]
    if tag == "de":
        return "de"
    if tag == "en":
        return "en"
    return default


def amount(value: Decimal, currency: str, lang: Lang) -> str:
    """:returns: ``value`` rounded to cents with its currency as a person reads it:
    ``1.150,00 €`` (de), ``€1,150.00`` (en); other currencies by their code (``1.150,00 SEK``)."""
    cents = value.quantize(Decimal("0.01"), ROUND_HALF_UP)
    sign = "-" if cents < 0 else ""
    grouped = f"{abs(cents):,.2f}"
    code = currency.upper()
    symbol = _SYMBOLS.get(code)
    if lang == "de":
        number = grouped.replace(",", " ").replace(".", ",").replace(" ", ".")
        return f"{sign}{number} {symbol or code}"
    if symbol and symbol != code:
        return f"{sign}{symbol}{grouped}"
    return f"{sign}{grouped} {code}"


def number(value: Decimal, lang: Lang) -> str:
    """:returns: a number that is no amount (a rate, a quantity, an exchange rate) as a person
    reads it, with the places it has and no more: ``5,5`` and ``1.200`` (de), ``5.5`` and
    ``1,200`` (en)."""
    plain = f"{value.normalize():f}"
    whole, _, places = plain.partition(".")
    sign, digits = ("-", whole[1:]) if whole.startswith("-") else ("", whole)
    grouped = f"{int(digits):,}"
    if lang == "de":
        grouped = grouped.replace(",", ".")
        return f"{sign}{grouped}{',' + places if places else ''}"
    return f"{sign}{grouped}{'.' + places if places else ''}"


def day(value: dt.date, lang: Lang) -> str:
    """:returns: ``24.11.2026`` (de) or ``24 Nov 2026`` (en)."""
    if lang == "de":
        return f"{value.day:02d}.{value.month:02d}.{value.year}"
    return f"{value.day} {_MONTHS_EN[value.month - 1]} {value.year}"


def moment(value: dt.datetime, lang: Lang) -> str:
    """:returns: an aware moment in Europe/Berlin with its zone named:
    ``01.12.2026, 15:05 Uhr MEZ`` (de), ``1 Dec 2026, 15:05 CET`` (en).

    :raises ValueError: for a naive ``value`` (its zone would be a guess).
    """
    if value.tzinfo is None:
        raise ValueError("a moment needs its time zone")
    local = value.astimezone(BERLIN)
    name = local.tzname() or "CET"
    de_zone, en_zone = _ZONES.get(name, (name, name))
    clock = f"{local.hour:02d}:{local.minute:02d}"
    if lang == "de":
        return f"{day(local.date(), 'de')}, {clock} Uhr {de_zone}"
    return f"{day(local.date(), 'en')}, {clock} {en_zone}"

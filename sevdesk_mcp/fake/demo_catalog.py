"""The demo company's articles and the position lines drawn from them.

Holzwerk Sonnenberg builds furniture and fitted interiors and sells firewood (7 % VAT) and a
few shop goods. Lines are drawn with a seeded :class:`random.Random`, so every build is equal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final

from sevdesk_mcp.fake.demo_common import PIECE, at
from sevdesk_mcp.fake.models import Part
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import Ref

METRE: Final = Ref("Unity", 3)
SQUARE_METRE: Final = Ref("Unity", 2)
LUMP_SUM: Final = Ref("Unity", 7)
CUBIC_METRE: Final = Ref("Unity", 8)
HOUR: Final = Ref("Unity", 9)
KILOMETRE: Final = Ref("Unity", 10)
STANDARD_PART: Final = Ref("Category", 1)
FULL_RATE: Final = Decimal(19)
REDUCED_RATE: Final = Decimal(7)


@dataclass(frozen=True, slots=True)
class PartSpec:
    """One article of the catalogue."""

    number: str
    name: str
    unity: Ref
    price: Decimal
    rate: Decimal
    stock: Decimal | None  # None: no stock kept (services)
    purchase: Decimal | None = None


CATALOG: Final = (
    PartSpec(
        "HS-1001",
        "Esstisch Eiche massiv 200 x 100 cm",
        PIECE,
        Decimal("2490.00"),
        FULL_RATE,
        Decimal(2),
        Decimal("1180.00"),
    ),
    PartSpec(
        "HS-1002",
        "Sitzbank Eiche geölt 180 cm",
        PIECE,
        Decimal("690.00"),
        FULL_RATE,
        Decimal(4),
        Decimal("310.00"),
    ),
    PartSpec(
        "HS-1003",
        "Einbauschrank nach Maß (je laufender Meter)",
        METRE,
        Decimal("1150.00"),
        FULL_RATE,
        None,
    ),
    PartSpec(
        "HS-1004", "Küchenfront Nussbaum furniert", SQUARE_METRE, Decimal("385.00"), FULL_RATE, None
    ),
    PartSpec("HS-2001", "Montage und Tischlerarbeiten", HOUR, Decimal("68.00"), FULL_RATE, None),
    PartSpec("HS-2002", "Anfahrt", KILOMETRE, Decimal("0.65"), FULL_RATE, None),
    PartSpec("HS-2003", "Planung und Aufmaß", LUMP_SUM, Decimal("250.00"), FULL_RATE, None),
    PartSpec(
        "HS-3001",
        "Brennholz Buche ofenfertig 33 cm",
        CUBIC_METRE,
        Decimal("119.00"),
        REDUCED_RATE,
        Decimal(38),
        Decimal("62.00"),
    ),
    PartSpec(
        "HS-3002",
        "Holzbriketts Buche 10 kg",
        PIECE,
        Decimal("4.90"),
        REDUCED_RATE,
        Decimal(120),
        Decimal("2.40"),
    ),
    PartSpec(
        "HS-4001",
        "Schneidebrett Kirsche",
        PIECE,
        Decimal("39.90"),
        FULL_RATE,
        Decimal(25),
        Decimal("14.00"),
    ),
    PartSpec(
        "HS-4002",
        "Pflegeöl für Holzoberflächen 0,5 l",
        PIECE,
        Decimal("18.50"),
        FULL_RATE,
        Decimal(40),
        Decimal("7.20"),
    ),
)

Line = tuple[PartSpec, Decimal]
_BY_NUMBER: Final = {p.number: p for p in CATALOG}
_FURNITURE: Final = ("HS-1001", "HS-1002", "HS-1003", "HS-1004")
_QUANTITY_RANGES: Final = {
    "HS-1001": (1, 1),
    "HS-1002": (1, 2),
    "HS-1003": (2, 6),
    "HS-1004": (4, 14),
    "HS-3001": (2, 8),
    "HS-3002": (20, 80),
    "HS-4001": (2, 12),
    "HS-4002": (2, 10),
}


def seed_parts(store: Store) -> dict[str, Part]:
    """Create the catalogue as parts.

    :returns: the parts by article number.
    """
    created = at(date(2026, 1, 2), 8)
    parts: dict[str, Part] = {}
    for spec in CATALOG:
        gross = (spec.price * (1 + spec.rate / 100)).quantize(Decimal("0.01"))
        part = Part(
            name=spec.name,
            partNumber=spec.number,
            unity=spec.unity,
            category=STANDARD_PART,
            stock=spec.stock or Decimal(0),
            stockEnabled=spec.stock is not None,
            price=spec.price,
            priceNet=spec.price,
            priceGross=gross,
            pricePurchase=spec.purchase,
            taxRate=spec.rate,
            create=created,
            update=created,
        )
        parts[spec.number] = store.parts.insert(part)
    return parts


def _counted(rng: random.Random, number: str) -> Line:
    low, high = _QUANTITY_RANGES[number]
    return _BY_NUMBER[number], Decimal(rng.randint(low, high))


def _furniture(rng: random.Random) -> list[Line]:
    lines = [_counted(rng, rng.choice(_FURNITURE))]
    if rng.random() < 0.4:
        lines.insert(0, (_BY_NUMBER["HS-2003"], Decimal(1)))
    lines.append((_BY_NUMBER["HS-2001"], Decimal(rng.randint(8, 60)) / 2))
    lines.append((_BY_NUMBER["HS-2002"], Decimal(rng.randint(2, 9) * 20)))
    return lines


def _firewood(rng: random.Random) -> list[Line]:
    lines = [_counted(rng, "HS-3001")]
    if rng.random() < 0.5:
        lines.append(_counted(rng, "HS-3002"))
    return lines


def _shop(rng: random.Random) -> list[Line]:
    return [_counted(rng, "HS-4001"), _counted(rng, "HS-4002")]


def draw_lines(rng: random.Random, profile: str) -> list[Line]:
    """:returns: the position lines of one sale to a customer with ``profile`` (F, W, S)."""
    kind = rng.choice(profile)
    if kind == "F":
        return _furniture(rng)
    if kind == "W":
        return _firewood(rng)
    return _shop(rng)

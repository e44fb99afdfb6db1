"""The profile of an e-invoice, from its specification identifier BT-24 (matched by substring,
``#compliant#`` and the old ``:compliant:`` forms alike; BT-24 outranks a PDF's XMP)."""

from __future__ import annotations

from typing import Final

from sevdesk_mcp.domain.einvoice.model import Profile

_MARKERS: Final[tuple[tuple[str, Profile], ...]] = (
    ("xrechnung", "XRECHNUNG"),
    ("minimum", "MINIMUM"),
    ("basicwl", "BASIC WL"),
    ("extended", "EXTENDED"),
    (":basic", "BASIC"),
    ("urn:cen.eu:en16931:2017", "EN16931"),
    ("comfort", "EN16931"),
)
XRECHNUNG_3: Final = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
LINELESS: Final[frozenset[Profile]] = frozenset({"MINIMUM", "BASIC WL"})


def profile_of(specification: str | None) -> Profile:
    """:returns: the normalised profile of a BT-24 value (``UNKNOWN`` if none matches)."""
    lowered = (specification or "").lower()
    for marker, profile in _MARKERS:
        if marker in lowered:
            return profile
    return "UNKNOWN"

"""A preview as a person reads it on the approval pages: an invoice finalized, with third-party
names, a table of positions, a day, a moment and an amount; what the page tests check."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Final

from sevdesk_mcp.safety.preview import (
    Change,
    Day,
    Fact,
    Lines,
    Moment,
    Plain,
    Preview,
    Quoted,
    Said,
    Table,
    amount,
    fact,
    say,
)

COMPANY: Final = "Holzwerk Sonnenberg GmbH"
ASKED: Final = dt.datetime(2026, 12, 1, 14, 5, 1, tzinfo=dt.UTC)
AMOUNT: Final = {"de": "1.150,00 €", "en": "€1,150.00"}
DAY: Final = {"de": "24.11.2026", "en": "24 Nov 2026"}


def positions() -> Table:
    columns = (Said("Item", "Artikel"), Said("Qty", "Menge"), Said("Net", "Netto"))
    rows = (
        (Quoted("Eichentisch ⟦massiv⟧"), Plain("1"), amount(Decimal("1000"))),
        (Quoted("Montage"), Plain("2"), amount(Decimal("150"))),
    )
    return Table(columns, rows, right=(1, 2))


def invoice_preview() -> Preview:
    return Preview(
        action=say(
            "Finalize invoice draft {0} for {1}",
            "Rechnungsentwurf {0} für {1} abschließen",
            "700041",
            Quoted("Schreinerei Müller & Söhne"),
        ),
        facts=[
            fact("Customer", "Kunde", Quoted("Schreinerei Müller & Söhne")),
            fact("Invoice date", "Rechnungsdatum", Day(dt.date(2026, 11, 24))),
            fact("Asked", "Angefragt", Moment(ASKED)),
            Fact(Said("Positions", "Positionen"), positions()),
            fact("Total", "Summe", amount(Decimal("1150"))),
            Fact(Said("Status", "Status"), Change(Plain("draft"), Plain("open"))),
            Fact(Said("Head text", "Kopftext"), Lines((Quoted("line one"), Quoted("line two")))),
        ],
        warnings=[say("sevDesk assigns the number now.", "sevDesk vergibt jetzt die Nummer.")],
        irreversible=True,
    )

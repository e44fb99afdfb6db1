"""A held-out check of the suggestion engine (issue 37): receipts written after the engine was
built, by someone who did not tune its words table, in words the labelled set does not use.
The expected answers are written by hand from german-tax-rules §3 and §1 (rule 10 for a domestic
receipt without German VAT, as in the labelled set). The figure is reported in docs/receipts.md;
the test fails below :data:`MIN_ACCURACY`, lower than the labelled set's 0.9 because this set
is what the engine has never seen."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Final

import pytest

from sevdesk_mcp.domain.receipts.suggest import (
    Company,
    ReceiptQuery,
    SupplierFacts,
    suggest_receipt,
)
from tests.demo_account import fake_client
from tests.receipts.labelled import LABELLED_TOKEN, build_labelled_fake

pytestmark = pytest.mark.anyio
MIN_ACCURACY: Final = Decimal("0.8")
D = Decimal
# (supplier, VAT id, text, net, printed rate, expected accounts, expected rule)
HELD_OUT: Final = (
    ("Aral Tankstelle Freiburg", None, "Super E10 45,3 l", D("62.18"), D(19), {"4530"}, 9),
    ("Telekom Deutschland GmbH", None, "Ihre Mobilfunk-Rechnung Oktober", D("39.95"), D(19),
     {"4920"}, 9),
    ("Staples Deutschland", None, "Kopierpapier A4, 5 Pakete", D("24.90"), D(19), {"4930"}, 9),
    ("Office-Partner GmbH", None, "Toner HP 305A schwarz", D("89.00"), D(19), {"4930"}, 9),
    ("Hermes Germany GmbH", None, "Paketversand Retoure", D("5.50"), D(19), {"4910"}, 9),
    ("Deutsche Post AG", None, "Briefmarken 10 x 0,95 EUR", D("9.50"), D(0), {"4910"}, 10),
    ("HUK-Coburg", None, "Kfz-Haftpflicht und Teilkasko 2026, Kennzeichen FR-AB 12", D("480.00"),
     D(0), {"4520"}, 10),
    ("Hauptzollamt Stuttgart", None, "Kraftfahrzeugsteuer FR-AB 12", D("190.00"), D(0),
     {"4510"}, 10),
    ("Autohaus Meier", None, "Inspektion, Bremsbeläge vorne erneuert", D("350.00"), D(19),
     {"4540"}, 9),
    ("DB Fernverkehr AG", None, "Fahrkarte Freiburg - Hamburg, 2. Klasse", D("84.11"), D(7),
     {"4663"}, 9),
    ("Hotel Adler Köln", None, "Übernachtung 1 Nacht, Einzelzimmer", D("120.00"), D(7),
     {"4666"}, 9),
    ("Taxi Zentrale Freiburg", None, "Taxifahrt zum Kunden", D("18.69"), D(7), {"4663"}, 9),
    ("Lufthansa", None, "Flug München - Berlin, Economy", D("180.00"), D(19), {"4663"}, 9),
    ("Thalia", None, "Fachbuch Umsatzsteuerrecht 2026", D("46.73"), D(7), {"4940"}, 9),
    ("Heise Medien", None, "Zeitschrift c't, Jahresabo", D("140.19"), D(7), {"4940"}, 9),
    ("Meta Platforms Ireland Ltd", "IE9692928F", "Facebook-Anzeigen Oktober", D("120.00"), D(0),
     {"4600"}, 14),
    ("Google Ireland Ltd", "IE6388047V", "Google Ads Kampagne Herbst", D("250.00"), D(0),
     {"4600"}, 14),
    ("Microsoft Ireland Operations Ltd", "IE8256796U", "Microsoft 365 Business Standard",
     D("45.00"), D(0), {"4964"}, 14),
    ("Dell GmbH", None, "Notebook Latitude 7450, 16 GB", D("1250.00"), D(19), {"0420", "0490"}, 9),
    ("Büromöbel Fischer", None, "Bürostuhl ergonomisch", D("399.00"), D(19), {"0480"}, 9),
    ("Sparkasse Freiburg", None, "Kontoführungsentgelt Oktober", D("12.90"), D(0), {"4970"}, 10),
    ("Ristorante Da Mario", None, "Geschäftsessen mit Kunde, Speisen", D("85.00"), D(7),
     {"4650"}, 9),
    ("Hausverwaltung Schmidt", None, "Miete Büroräume November", D("1200.00"), D(19), {"4210"}, 9),
    ("Stadtwerke Freiburg", None, "Abschlag Strom November", D("95.00"), D(19), {"4240"}, 9),
    ("Allianz Versicherungs-AG", None, "Betriebshaftpflichtversicherung 2026", D("300.00"), D(0),
     {"4360"}, 10),
)  # fmt: skip


async def test_held_out_receipts() -> None:
    books = build_labelled_fake("skr03")
    client = fake_client(books.fake, token=LABELLED_TOKEN)
    wrong = []
    for supplier, vat_id, text, net, rate, accounts, rule in HELD_OUT:
        query = ReceiptQuery(
            description=text,
            rate=rate,
            net=net,
            day=date(2026, 10, 15),
            supplier=SupplierFacts(name=supplier, vat_id=vat_id, country=(vat_id or "DE")[:2]),
        )
        found = await suggest_receipt(client, query, Company())
        first = found.suggestions[0] if found.suggestions else None
        got = (first.account_number, first.tax_rule_id) if first else ("none", None)
        if got[0] not in accounts or got[1] != rule:
            wrong.append(f"{supplier} / {text}: got {got}, expected {sorted(accounts)} rule {rule}")
    right = len(HELD_OUT) - len(wrong)
    accuracy = Decimal(right) / Decimal(len(HELD_OUT))
    print(f"held out: {right} of {len(HELD_OUT)} right ({accuracy:.3f})")
    print("\n".join(wrong))
    assert accuracy >= MIN_ACCURACY, wrong

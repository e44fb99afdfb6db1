"""The booking suggestion engine (issue #37): the company's history first and cached, the net
amount deciding expense, GWG, pool or asset, reverse charge proposed with its sentence, rate
hints, and an answer that says what is missing when nothing fits. Expected values are written by
hand from german-tax-rules.md §1 and §3."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from sevdesk_mcp.domain.receipts.suggest import (
    Company,
    ReceiptQuery,
    Suggestion,
    SupplierFacts,
    owed_sentence,
    propose_reverse_charge,
    suggest_receipt,
)
from sevdesk_mcp.domain.receipts.suggest.amounts import LowValueChoice
from sevdesk_mcp.domain.receipts.suggest.words import Nature
from sevdesk_mcp.fake.accounts import account_by_number
from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.models import Contact
from sevdesk_mcp.fake.receipts import Voucher, position_on
from sevdesk_mcp.fake.wire import Ref
from sevdesk_mcp.sevdesk.client import SevdeskClient
from tests.demo_account import fake_client
from tests.receipts.labelled import LABELLED_TOKEN, Chart, build_labelled_fake

pytestmark = pytest.mark.anyio
LEXARO = SupplierFacts(name="Lexaro Cloud GmbH", vat_id="DE287654321")
IRISH = "IE6388047V"  # Google Ireland


def _client(chart: Chart = "skr03") -> tuple[SevdeskClient, FakeSevdesk]:
    books = build_labelled_fake(chart)
    return fake_client(books.fake, token=LABELLED_TOKEN), books.fake


async def _first(
    client: SevdeskClient, query: ReceiptQuery, company: Company | None = None
) -> Suggestion:
    found = await suggest_receipt(client, query, company)
    assert found.suggestions, found
    return found.suggestions[0]


# history


@pytest.mark.parametrize(
    "words", ["Druckerpapier, Ordner, Toner", "Schulung Buchhaltung", "Kfz-Reparatur"]
)
async def test_a_supplier_booked_twice_on_4964_gets_4964_whatever_its_words(words: str) -> None:
    client, _ = _client()
    first = await _first(client, ReceiptQuery(description=words, rate=Decimal(19),
                                              net=Decimal("89.00"), supplier=LEXARO))  # fmt: skip
    assert (first.account_number, first.tax_rule_id, first.tax_rate) == ("4964", 9, Decimal(19))
    assert first.confidence == "high"
    assert first.evidence[0].startswith("history: this supplier (matched by VAT id) was booked")
    assert "2 times of 2 earlier receipts on 4964" in first.evidence[0]


async def test_the_history_knows_the_supplier_by_name_iban_or_contact() -> None:
    books = build_labelled_fake("skr03")
    client = fake_client(books.fake, token=LABELLED_TOKEN)
    contact = books.contacts["Lexaro Cloud GmbH"]
    for supplier, how in (
        (SupplierFacts(name="LEXARO Cloud"), "name"),
        (SupplierFacts(iban="DE89 3704 0044 0532 0130 00"), "IBAN"),
        (SupplierFacts(contact_id=contact), f"contact {contact}"),
    ):
        first = await _first(client, ReceiptQuery(description="Bürobedarf", supplier=supplier))
        assert first.account_number == "4964"
        assert f"matched by {how})" in first.evidence[0]


async def test_the_skr04_history_case_books_6837() -> None:
    client, _ = _client("skr04")
    supplier = SupplierFacts(name="Pixelwerk Software GmbH", vat_id="DE198765432")
    first = await _first(client, ReceiptQuery(description="Beratung Bildbearbeitung",
                                              rate=Decimal(19), supplier=supplier))  # fmt: skip
    assert (first.account_number, first.tax_rule_id) == ("6837", 9)


async def test_the_history_is_read_once_per_account_and_cached() -> None:
    client, fake = _client()
    for words in ("Druckerpapier", "Toner", "Porto"):
        await suggest_receipt(client, ReceiptQuery(description=words, supplier=LEXARO))
    reads = [r.path for r in fake.requests if r.path.endswith(("/Voucher", "/VoucherPos"))]
    assert len(reads) == 2, reads  # one list each, then the cache


async def test_an_asset_account_booked_before_is_followed_for_the_next_asset() -> None:
    client, fake = _client()
    _book(fake, "Systemhaus Weber GmbH", "0490", Decimal("1890.00"))
    supplier = SupplierFacts(name="Systemhaus Weber GmbH")
    laptop = ReceiptQuery(description="Laptop", rate=Decimal(19), supplier=supplier)
    asset = await _first(client, _with(laptop, "1400.00"))
    assert (asset.account_number, asset.treatment) == ("0490", "asset")
    gwg = await _first(client, _with(laptop, "649.00"))
    assert (gwg.account_number, gwg.treatment) == ("0480", "gwg")


def _with(query: ReceiptQuery, net: str) -> ReceiptQuery:
    return ReceiptQuery(description=query.description, rate=query.rate, net=Decimal(net),
                        supplier=query.supplier)  # fmt: skip


def _book(fake: FakeSevdesk, supplier: str, number: str, net: Decimal) -> None:
    store = fake.store
    contact = store.add(store.contacts, Contact(name=supplier))
    voucher = Voucher(voucherDate=at(dt.date(2026, 1, 12)), supplier=contact.ref(),
                      supplierName=supplier, description="R-1", creditDebit="C",
                      taxRule=Ref("TaxRule", 9), status=1000)  # fmt: skip
    store.add(store.vouchers, voucher)
    account = account_by_number(number)
    assert account is not None
    pos = position_on(voucher, account, net, Decimal(19), "Notebook")
    voucher.set_sums([store.add(store.voucher_positions, pos)])


# the net amount decides


@pytest.mark.parametrize(
    ("chart", "net", "low_value", "account", "treatment"),
    [
        ("skr03", "1400.00", None, "0420", "asset"),
        ("skr03", "649.00", None, "0480", "gwg"),
        ("skr03", "800.00", None, "0480", "gwg"),
        ("skr03", "800.01", None, "0420", "asset"),
        ("skr03", "649.00", "pool", "0485", "pool"),
        ("skr03", "950.00", "pool", "0485", "pool"),
        ("skr03", "649.00", "depreciate", "0420", "asset"),
        ("skr03", "249.00", None, "4930", "expense"),
        ("skr04", "1400.00", None, "0650", "asset"),
        ("skr04", "649.00", None, "0670", "gwg"),
        ("skr04", "649.00", "pool", "0675", "pool"),
    ],
)
async def test_the_net_amount_decides_expense_gwg_pool_or_asset(
    chart: Chart, net: str, low_value: LowValueChoice | None, account: str, treatment: str
) -> None:
    client, _ = _client(chart)
    query = ReceiptQuery(description="Notebook Lenovo ThinkPad, GWG netto", rate=Decimal(19),
                         net=Decimal(net))  # fmt: skip
    company = Company(low_value=low_value)
    first = await _first(client, query, company)
    assert (first.account_number, first.treatment, first.tax_rule_id) == (account, treatment, 9)


async def test_office_supplies_stay_an_expense_at_any_amount() -> None:
    client, _ = _client()
    query = ReceiptQuery(description="Druckerpapier, 200 Kartons", rate=Decimal(19),
                         net=Decimal("1400.00"))  # fmt: skip
    first = await _first(client, query)
    assert (first.account_number, first.treatment) == ("4930", None)


# reverse charge


@pytest.mark.parametrize(
    ("supplier", "nature", "rate", "expected"),
    [
        (SupplierFacts(vat_id=IRISH), "service", 19, (14, "46/47 and 67",
         "§13b: you owe 19 % = 57.00 EUR, deductible as input tax (boxes 46/47 and 67)")),
        (SupplierFacts(country="US"), "service", 19, (12, "84/85 and 67",
         "§13b: you owe 19 % = 57.00 EUR, deductible as input tax (boxes 84/85 and 67)")),
        (SupplierFacts(iban="FR7630006000011234567890189"), "service", 19, (14, "46/47 and 67",
         "§13b: you owe 19 % = 57.00 EUR, deductible as input tax (boxes 46/47 and 67)")),
        (SupplierFacts(vat_id="ATU63512874"), "goods", 19, (8, "89 and 61",
         "§1a intra-EU acquisition: you owe 19 % = 57.00 EUR, deductible as input tax (boxes "
         "89 and 61)")),
        (SupplierFacts(vat_id="NL853746291B01"), "goods", 7, (8, "93 and 61",
         "§1a intra-EU acquisition: you owe 7 % = 21.00 EUR, deductible as input tax (boxes "
         "93 and 61)")),
    ],
)  # fmt: skip
def test_reverse_charge_is_proposed_with_its_rule_boxes_and_sentence(
    supplier: SupplierFacts, nature: Nature, rate: int, expected: tuple[int, str, str]
) -> None:
    found = propose_reverse_charge(
        supplier, Decimal("300.00"), nature=nature, german_vat=False, rate=Decimal(rate)
    )
    assert found is not None
    assert (found.rule, found.boxes, found.sentence) == expected


@pytest.mark.parametrize(
    ("supplier", "nature", "german_vat", "texts"),
    [
        (SupplierFacts(vat_id=IRISH), "service", True, ()),  # German VAT on the receipt
        (SupplierFacts(vat_id="DE811234567", country="DE"), "service", False, ()),  # domestic
        (SupplierFacts(vat_id="ATU15014804"), "abroad", False, ()),  # a hotel in Vienna
        (SupplierFacts(vat_id="ATU15014804"), "service", False, ("Übernachtung Hotel",)),
        (SupplierFacts(country="US"), "goods", False, ()),  # an import: customs, box 62
        (SupplierFacts(vat_id=IRISH), "none", False, ()),  # insurance: no supply
    ],
)
def test_no_reverse_charge_where_the_law_places_none(
    supplier: SupplierFacts, nature: Nature, german_vat: bool, texts: tuple[str, ...]
) -> None:
    found = propose_reverse_charge(
        supplier, Decimal("300.00"), nature=nature, german_vat=german_vat, texts=texts
    )
    assert found is None


def test_a_small_business_owes_reverse_charge_without_deduction() -> None:
    found = propose_reverse_charge(
        SupplierFacts(vat_id=IRISH), Decimal("100.00"), nature="service", german_vat=False,
        deductible=False,
    )  # fmt: skip
    assert found is not None
    assert (found.rule, found.tax) == (13, Decimal("19.00"))
    assert found.sentence == (
        "§13b: you owe 19 % = 19.00 EUR, not deductible (no input tax deduction) "
        "(boxes 46/47 or 84/85)"
    )


def test_the_preview_sentence_of_a_rule() -> None:
    assert owed_sentence(12, Decimal("20.00")) == (
        "§13b: you owe 19 % = 3.80 EUR, deductible as input tax (boxes 84/85 and 67)"
    )


async def test_an_irish_ads_receipt_gets_rule_14_at_0_percent_and_the_sentence() -> None:
    client, _ = _client()
    supplier = SupplierFacts(name="Google Ireland Limited", vat_id=IRISH, country="IE")
    query = ReceiptQuery(description="Google Ads advertising services, March 2026",
                         rate=Decimal(0), net=Decimal("350.00"), supplier=supplier)  # fmt: skip
    first = await _first(client, query)
    assert (first.account_number, first.tax_rule_id, first.tax_rate) == ("4600", 14, Decimal(0))
    assert first.reverse_charge == (
        "§13b: you owe 19 % = 66.50 EUR, deductible as input tax (boxes 46/47 and 67)"
    )
    assert any("the supplier's VAT id IE6388047V" in e for e in first.evidence)


async def test_a_hotel_abroad_gets_no_reverse_charge_but_rule_10() -> None:
    client, _ = _client()
    supplier = SupplierFacts(name="Hotel Sacher Wien", vat_id="ATU15014804", country="AT")
    query = ReceiptQuery(description="Übernachtung 2 Nächte", rate=Decimal(0),
                         net=Decimal("420.00"), supplier=supplier)  # fmt: skip
    first = await _first(client, query)
    assert (first.account_number, first.tax_rule_id, first.reverse_charge) == ("4666", 10, None)


# rate hints


@pytest.mark.parametrize(
    ("words", "day", "account", "rule", "rate"),
    [
        ("Fachbuch Steuerrecht", dt.date(2026, 3, 1), "4940", 9, Decimal(7)),
        ("ICE Fahrkarte Berlin - München", dt.date(2026, 3, 1), "4663", 9, Decimal(7)),
        ("Taxifahrt zum Bahnhof", dt.date(2026, 3, 1), "4663", 9, Decimal(7)),
        ("Flug FRA-HAM", dt.date(2026, 3, 1), "4663", 9, Decimal(19)),
        ("Briefmarken Deutsche Post", dt.date(2026, 3, 1), "4910", 10, Decimal(0)),
        ("DHL Paket national", dt.date(2026, 3, 1), "4910", 9, Decimal(19)),
        ("Übernachtung Einzelzimmer", dt.date(2026, 3, 1), "4666", 9, Decimal(7)),
        ("Bewirtung Geschäftsessen", dt.date(2026, 3, 1), "4650", 9, Decimal(7)),
        ("Bewirtung Geschäftsessen", dt.date(2025, 11, 3), "4650", 9, Decimal(19)),
        ("Kfz-Versicherung Vollkasko", dt.date(2026, 3, 1), "4520", 10, Decimal(0)),
        ("Kfz-Steuer", dt.date(2026, 3, 1), "4510", 10, Decimal(0)),
        ("Kontoführungsgebühren", dt.date(2026, 3, 1), "4970", 10, Decimal(0)),
    ],
)
async def test_without_a_printed_rate_the_usual_rate_is_proposed(
    words: str, day: dt.date, account: str, rule: int, rate: Decimal
) -> None:
    client, _ = _client()
    first = await _first(client, ReceiptQuery(description=words, day=day))
    assert (first.account_number, first.tax_rule_id, first.tax_rate) == (account, rule, rate)
    assert first.rate_hint


async def test_the_meal_hint_follows_the_2026_rates() -> None:
    client, _ = _client()
    now = await _first(client, ReceiptQuery(description="Bewirtung", day=dt.date(2026, 1, 2)))
    before = await _first(client, ReceiptQuery(description="Bewirtung", day=dt.date(2025, 12, 30)))
    assert (
        now.rate_hint == "70/30 split (4654 / 6644 for the 30 %); from 2026 food 7 %, drinks 19 %"
    )
    assert before.rate_hint == (
        "70/30 split (4654 / 6644 for the 30 %); before 2026 food and drinks 19 %"
    )


# nothing fits


async def test_when_nothing_fits_the_answer_says_what_is_missing() -> None:
    client, _ = _client()
    query = ReceiptQuery(description="xyzzy qwerty", supplier=SupplierFacts(name="Nobody GmbH"))
    found = await suggest_receipt(client, query)
    assert found.suggestions == []
    assert found.missing == (
        "no words of the table and no earlier receipt from Nobody GmbH: give the receipt's "
        "text (what was bought), the supplier (contact, VAT id or IBAN), or the account"
    )
    assert "nothing is guessed" in found.note


async def test_every_suggestion_says_how_sure_and_why() -> None:
    client, _ = _client()
    found = await suggest_receipt(client, ReceiptQuery(description="Druckerpapier und Ordner"))
    first = found.suggestions[0]
    assert (first.account_number, first.confidence) == ("4930", "medium")
    assert first.reason.startswith("medium confidence: words: 'druckerpapier', 'ordner'")
    assert first.evidence[1] == "guidance: 4930 takes tax rule 9 at 19 %"
    assert (
        found.chart == "SKR03 (the booking accounts (9 SKR03 numbers))"
    )  # 1200 and 8400 take no expenses

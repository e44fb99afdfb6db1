"""Finalizing a receipt from a foreign business entered without reverse charge: the preview
warns and names the boxes it belongs in (issue 36, item 4); a domestic 0 % receipt and a hotel
abroad get no such warning."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.domain.receipts.finalize import prepare_finalize
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.accounts import account_by_number
from sevdesk_mcp.fake.cases_vat import VAT_CASES_TOKEN, build_vat_cases
from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.models import Contact
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.wire import Ref
from sevdesk_mcp.safety.preview import Words
from tests.demo_account import fake_client
from tests.documents.commit_helpers import commit_app
from tests.receipts.helpers import CREATE
from tests.writes.tool_helpers import call, facts, said, writes

MODEL = Words("en", "model")

pytestmark = pytest.mark.anyio


def _draft(
    fake: FakeSevdesk, supplier: str, vat_id: str | None, account: str, text: str, *, rule: int = 9
) -> int:
    store = fake.store
    contact = store.add(store.contacts, Contact(name=supplier, vatNumber=vat_id))
    voucher = store.add(
        store.vouchers,
        Voucher(
            voucherDate=at(date(2026, 5, 4)), supplier=contact.ref(), supplierName=supplier,
            description="INV-77", creditDebit="C", taxRule=Ref("TaxRule", rule), status=50,
        ),
    )  # fmt: skip
    found = account_by_number(account)
    assert found is not None
    pos = VoucherPos(
        voucher=voucher.ref(),
        accountDatev=Ref("AccountDatev", found.id),
        taxRate=Decimal(0),
        sumNet=Decimal("120.00"),
        comment=text,
    )
    pos.compute()
    voucher.set_sums([store.add(store.voucher_positions, pos)])
    return voucher.id


@pytest.mark.parametrize(
    ("supplier", "vat_id", "account", "text", "boxes"),
    [
        ("Adobe Systems Software Ireland Ltd", "IE6364992H", "4806", "Creative Cloud", "46/47"),
        ("Timber Consulting LLC", None, "4950", "Consulting, reverse charge", "84/85"),
    ],
)
async def test_a_foreign_receipt_at_zero_percent_is_warned_about(
    supplier: str, vat_id: str | None, account: str, text: str, boxes: str
) -> None:
    fake, _ = build_vat_cases()
    voucher_id = _draft(fake, supplier, vat_id, account, text)
    prepared = await prepare_finalize(fake_client(fake, token=VAT_CASES_TOKEN), voucher_id)
    warning = MODEL.text(prepared.preview.warnings[0])
    assert f"boxes {boxes}" in warning
    assert "tax 22.80" in warning  # 120.00 x 19 %
    german = Words("de").text(prepared.preview.warnings[0])
    assert f"Kennzahlen {boxes.replace(' and ', ' und ')}" in german
    assert "Steuer 22,80 €" in german and "Steuerschuld des Leistungsempfängers" in german


@pytest.mark.parametrize(
    ("supplier", "vat_id", "account", "text"),
    [
        ("Versicherung Mitte AG", None, "4360", "Betriebshaftpflicht"),  # domestic, no VAT
        ("Hotel Sacher Wien", "ATU15014804", "4660", "Übernachtung Messe"),  # abroad
    ],
)
async def test_no_warning_where_no_german_box_applies(
    supplier: str, vat_id: str | None, account: str, text: str
) -> None:
    fake, _ = build_vat_cases()
    voucher_id = _draft(fake, supplier, vat_id, account, text)
    prepared = await prepare_finalize(fake_client(fake, token=VAT_CASES_TOKEN), voucher_id)
    assert not [w for w in prepared.preview.warnings if "belongs in boxes" in MODEL.text(w)]


def _draft_args(rule: int, text: str, account: str = "4806") -> dict[str, Any]:
    return {
        "date": "2026-10-20",
        "supplier_name": "Adobe Systems Software Ireland Ltd",
        "receipt_number": "IE-2026-0042",
        "tax_rule_id": rule,
        "positions": [
            {"account_number": account, "tax_rate": 0, "net": "300.00", "gross": "300.00",
             "text": text}
        ],
    }  # fmt: skip


async def test_the_create_preview_says_what_reverse_charge_owes() -> None:
    # rule 14 (EU service), 300.00 net at "0 % (19 %)": you owe 300.00 x 19 % = 57.00 EUR
    fake = build_demo()
    args = _draft_args(14, "Creative Cloud Teams")
    result = (await call(commit_app(fake), CREATE, **args, dryRun=True))["structuredContent"]
    shown = facts(result["preview"])
    assert shown["VAT you owe"].startswith(
        "§13b reverse charge (EU service): you owe 19 % = 57.00 EUR (box 46/47), deductible "
        "as input tax (box 67)"
    )
    assert writes(fake) == []


async def test_the_create_preview_warns_of_a_foreign_receipt_without_reverse_charge() -> None:
    fake = build_demo()
    args = _draft_args(9, "Creative Cloud Teams, reverse charge")
    result = (await call(commit_app(fake), CREATE, **args, dryRun=True))["structuredContent"]
    warnings = said(result["preview"])[1]
    assert any("belongs in boxes 84/85 and 67" in w and "tax 57.00" in w for w in warnings)


async def test_the_finalize_preview_says_what_reverse_charge_owes() -> None:
    # rule 12 (a non-EU service), 120.00 net: you owe 120.00 x 19 % = 22.80 EUR in 84/85
    fake, _ = build_vat_cases()
    voucher_id = _draft(fake, "Timber Consulting LLC", None, "4950", "Consulting", rule=12)
    prepared = await prepare_finalize(fake_client(fake, token=VAT_CASES_TOKEN), voucher_id)
    shown = {MODEL.text(f.label): "\n".join(MODEL.value_lines(f.value))
             for f in prepared.preview.facts}  # fmt: skip
    assert shown["VAT you owe"].startswith(
        "§13b reverse charge: you owe 19 % = 22.80 EUR (box 84/85), deductible as input tax "
        "(box 67)"
    )
    german = {Words("de").text(f.label): "\n".join(Words("de").value_lines(f.value))
              for f in prepared.preview.facts}  # fmt: skip
    assert german["Umsatzsteuer, die Sie schulden"].startswith(
        "§13b Steuerschuld des Leistungsempfängers (Reverse Charge): Sie schulden 19 % = "
        "22,80 € (Kennzahl 84/85), als Vorsteuer abziehbar (Kennzahl 67)"
    )
    assert not [w for w in prepared.preview.warnings if "belongs in boxes" in MODEL.text(w)]

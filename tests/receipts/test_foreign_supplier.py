"""Finalizing a receipt from a foreign business entered without reverse charge: the preview
warns and names the boxes it belongs in (issue 36, item 4); a domestic 0 % receipt and a hotel
abroad get no such warning."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from sevdesk_mcp.domain.receipts.finalize import prepare_finalize
from sevdesk_mcp.fake.accounts import account_by_number
from sevdesk_mcp.fake.cases_vat import VAT_CASES_TOKEN, build_vat_cases
from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.demo_common import at
from sevdesk_mcp.fake.models import Contact
from sevdesk_mcp.fake.receipts import Voucher, VoucherPos
from sevdesk_mcp.fake.wire import Ref
from tests.demo_account import fake_client

pytestmark = pytest.mark.anyio


def _draft(fake: FakeSevdesk, supplier: str, vat_id: str | None, account: str, text: str) -> int:
    store = fake.store
    contact = store.add(store.contacts, Contact(name=supplier, vatNumber=vat_id))
    voucher = store.add(
        store.vouchers,
        Voucher(
            voucherDate=at(date(2026, 5, 4)), supplier=contact.ref(), supplierName=supplier,
            description="INV-77", creditDebit="C", taxRule=Ref("TaxRule", 9), status=50,
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
    warning = prepared.preview.warnings[0]
    assert f"boxes {boxes}" in warning
    assert "tax 22.80" in warning  # 120.00 x 19 %


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
    assert not [w for w in prepared.preview.warnings if "belongs in boxes" in w]

"""Receipts on a bookkeeping 1.0 account (the demo books turned 1.0): ``accountingType`` per
position and a ``taxType`` on the receipt, checked before the first request; the whole flow
(upload, draft, update, finalize with approval, booking, read-back) and every refusal."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.domain.errors import PreconditionError
from sevdesk_mcp.domain.receipts.accounting_types import (
    AccountingTypes,
    LegacyAccount,
    check_number,
)
from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.receipts import as_bookkeeping_1
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.wire import Ref
from tests.documents.commit_helpers import ChangeBefore, approved, commit_app, facts
from tests.receipts.helpers import (
    CREATE,
    FINALIZE,
    MERCATURA,
    MERCATURA_PDF,
    SUGGEST,
    UPDATE,
    UPLOAD,
    book_mercatura,
    newest_voucher,
    receipt_folder,
    receipts_app,
)
from tests.writes.tool_helpers import body, call, error_text, said, writes

pytestmark = pytest.mark.anyio
SAVE = "/Voucher/Factory/saveVoucher"
BUEROBEDARF = 26  # accounting type 4930 (SKR03) / 6815 (SKR04)
PORTO = 27  # accounting type 4910
LEGACY: dict[str, Any] = {k: v for k, v in MERCATURA.items() if k != "tax_rule_id"}


def legacy_demo() -> FakeSevdesk:
    """:returns: the demo books on bookkeeping 1.0."""
    fake = build_demo()
    as_bookkeeping_1(fake.store)
    return fake


def _last_save(fake: FakeSevdesk) -> dict[str, Any]:
    """:returns: the JSON body of the newest ``saveVoucher``."""
    sent: dict[str, Any] = json.loads(
        [r for r in fake.requests if r.method == "POST" and r.path == SAVE][-1].body
    )
    return sent


def _with(**changes: Any) -> dict[str, Any]:
    position = {**LEGACY["positions"][0], **changes.pop("position", {})}
    return {**LEGACY, "positions": [position], **changes}


async def _draft(fake: FakeSevdesk, **changes: Any) -> int:
    result = await call(commit_app(fake), CREATE, **_with(**changes))
    assert result["structuredContent"]["status"] == "done", result
    return newest_voucher(fake).id


async def test_create_sends_the_1_0_fields_and_reads_back() -> None:
    fake = legacy_demo()
    result = (await call(commit_app(fake), CREATE, **LEGACY))["structuredContent"]
    assert result["status"] == "done", result
    shown = facts(result["preview"])
    assert shown["Tax type"] == "default (bookkeeping 1.0)"
    assert shown["Positions"].startswith("No. | Booking account | VAT rate | Net | VAT | Gross")
    assert "| 4930 ⟦Bürobedarf⟧ (accounting type 26) | 19 % | 75.62 EUR |" in shown["Positions"]
    assert any("income or an output type" in w for w in said(result["preview"])[1])
    sent = body(fake, "POST", SAVE)
    assert sent["voucher"]["taxType"] == "default" and "taxRule" not in sent["voucher"]
    (pos,) = sent["voucherPosSave"]
    assert pos["accountingType"] == {"id": BUEROBEDARF, "objectName": "AccountingType"}
    assert "accountDatev" not in pos
    assert (pos["sumNet"], pos["sumTax"], pos["sumGross"]) == ("75.62", "14.37", "89.99")
    voucher = newest_voucher(fake)
    assert (voucher.taxType, voucher.taxRule, voucher.status) == ("default", None, 50)
    (stored,) = fake.store.voucher_positions_of(voucher)
    assert stored.accountingType == Ref("AccountingType", BUEROBEDARF)
    assert stored.accountDatev is None
    assert result["result"]["status"] == "Entwurf (draft)"


async def test_an_skr04_number_finds_the_same_accounting_type() -> None:
    fake = legacy_demo()
    await _draft(fake, position={"account_number": "6815"})
    (pos,) = body(fake, "POST", SAVE)["voucherPosSave"]
    assert pos["accountingType"]["id"] == BUEROBEDARF


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"tax_rule_id": 9}, "tax_rule_id 9 is for bookkeeping 2.0"),
        ({"position": {"account_number": "4970"}}, "is no accounting type of this sevDesk"),
        ({"tax_type": "noteu"}, "tax type noteu does not allow 19 % (account 4930)"),
        ({"tax_type": "ss"}, "default at 0/7/19 %, eu at 0/7/19 %, noteu at 0 %, ss at 0 %"),
        ({"position": {"gross": "90.00"}}, "gives tax 14.37 and gross 89.99, not 90.00"),
    ],
)
async def test_create_refuses_before_any_request(changes: dict[str, Any], said: str) -> None:
    fake = legacy_demo()
    text = error_text(await call(commit_app(fake), CREATE, **_with(**changes)))
    assert said in text
    assert writes(fake) == []


async def test_custom_is_no_tax_type_of_the_tool() -> None:
    fake = legacy_demo()
    text = error_text(await call(commit_app(fake), CREATE, **_with(tax_type="custom")))
    assert "tax_type" in text
    assert writes(fake) == []


async def test_a_2_0_account_refuses_a_tax_type() -> None:
    fake = build_demo()
    text = error_text(await call(commit_app(fake), CREATE, **_with(tax_type="default")))
    assert "tax_type default is for bookkeeping 1.0" in text
    assert "give tax_rule_id" in text
    assert writes(fake) == []


async def test_a_2_0_account_still_defaults_to_tax_rule_9() -> None:
    fake = build_demo()
    await call(commit_app(fake), CREATE, **LEGACY)
    assert body(fake, "POST", SAVE)["voucher"]["taxRule"] == {"id": 9, "objectName": "TaxRule"}


async def test_update_replaces_the_positions_with_1_0_ones() -> None:
    fake = legacy_demo()
    draft = await _draft(fake)
    args = _with(
        position={"account_number": "4910", "tax_rate": 0, "net": "12.00", "gross": "12.00"},
        tax_type="noteu",
    )
    result = await call(commit_app(fake), UPDATE, **args, voucher_id=draft)
    assert result["structuredContent"]["status"] == "done", result
    sent = _last_save(fake)
    assert sent["voucher"]["id"] == draft and sent["voucher"]["taxType"] == "noteu"
    assert sent["voucherPosSave"][0]["accountingType"]["id"] == PORTO
    assert len(sent["voucherPosDelete"]) == 1
    voucher = fake.store.vouchers.get(draft)
    assert (voucher.taxType, voucher.sumGross) == ("noteu", Decimal("12.00"))


async def test_finalize_checks_again_and_sends_the_1_0_fields() -> None:
    fake = legacy_demo()
    draft = await _draft(fake)
    message, result = await approved(commit_app(fake), FINALIZE, voucher_id=draft)
    assert "Tax type: default (bookkeeping 1.0)" in message
    assert "income or an output type" in message
    assert result["structuredContent"]["result"]["status"] == "offen (open)", result
    sent = _last_save(fake)
    assert sent["voucher"]["status"] == 100 and sent["voucher"]["taxType"] == "default"
    assert sent["voucherPosSave"][0]["accountingType"]["id"] == BUEROBEDARF
    assert fake.store.vouchers.get(draft).status == 100


def _stored(fake: FakeSevdesk, draft: int) -> Any:
    (position,) = fake.store.voucher_positions_of(fake.store.vouchers.get(draft))
    return position


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda v, p: setattr(v, "taxType", "custom"), "Tax type custom is not written here"),
        (lambda v, p: setattr(v, "taxType", None), "Tax type (none) is not written here"),
        (lambda v, p: setattr(v, "taxType", "ss"), "tax type ss does not allow 19 %"),
        (
            lambda v, p: setattr(p, "accountingType", Ref("AccountingType", 999)),
            "accounting type 999 is not one of this sevDesk account's accounting types",
        ),
        (
            lambda v, p: setattr(p, "accountingType", None),
            "no accounting type is not one of",
        ),
    ],
)
async def test_finalize_refuses_what_1_0_does_not_allow(change: Any, said: str) -> None:
    fake = legacy_demo()
    draft = await _draft(fake)
    change(fake.store.vouchers.get(draft), _stored(fake, draft))
    before = len(writes(fake))
    text = error_text(await call(commit_app(fake), FINALIZE, voucher_id=draft))
    assert said in text
    assert len(writes(fake)) == before


async def test_the_finalize_sends_the_approved_tax_type_again() -> None:
    fake = legacy_demo()
    draft = await _draft(fake)

    def noteu(store: Store) -> None:
        store.vouchers.get(draft).taxType = "noteu"

    app = commit_app(fake, transport=ChangeBefore(fake, "POST", SAVE, noteu))
    _, result = await approved(app, FINALIZE, voucher_id=draft)
    assert result["structuredContent"]["result"]["status"] == "offen (open)", result
    assert fake.store.vouchers.get(draft).taxType == "default"


async def test_suggestions_come_from_the_accounting_types() -> None:
    fake = legacy_demo()
    app = commit_app(fake)
    found = (await call(app, SUGGEST, description="Druckerpapier und Ordner", tax_rate=19))[
        "structuredContent"
    ]
    first = found["suggestions"][0]
    assert (first["account_number"], first["account_id"]) == ("4930", BUEROBEDARF)
    assert "accounting type 26 (bookkeeping 1.0)" in first["allowed"]
    assert "noteu at 0 %" in first["allowed"] and first["rate_fits"] is True
    assert "income or expenses" in found["note"]
    by_name = (await call(app, SUGGEST, description="Porto für Pakete"))["structuredContent"]
    assert by_name["suggestions"][0]["account_id"] == PORTO
    none = (await call(app, SUGGEST, description="xyzzy qwerty"))["structuredContent"]
    assert none["suggestions"] == [] and "4930 Bürobedarf" in none["note"]
    assert not any("ReceiptGuidance" in r.path for r in fake.requests)
    assert writes(fake) == []


async def test_a_supplier_invoice_goes_from_pdf_to_paid_on_1_0(tmp_path: Path) -> None:
    fake = legacy_demo()
    app = receipts_app(fake, receipt_folder(tmp_path))
    (tx,) = [t for t in fake.store.transactions if t.amount == Decimal("-89.99")]
    uploaded = (await call(app, UPLOAD, path=MERCATURA_PDF))["structuredContent"]
    assert uploaded["status"] == "done", uploaded
    drafted = await call(app, CREATE, **LEGACY, file=uploaded["result"]["filename"])
    assert drafted["structuredContent"]["status"] == "done", drafted
    voucher = newest_voucher(fake)
    assert voucher.document is not None and voucher.taxType == "default"
    _, finalized = await approved(app, FINALIZE, voucher_id=voucher.id)
    assert finalized["structuredContent"]["result"]["status"] == "offen (open)", finalized
    await book_mercatura(app, voucher.id, tx.id)
    assert (voucher.status, voucher.paidAmount, tx.status) == (1000, Decimal("89.99"), 400)
    read = (await call(app, "sevdesk_get_voucher", voucher_id=voucher.id))["structuredContent"]
    assert read["tax_type"] == "default"
    (position,) = read["positions"]
    assert position["bookkeeping_system"] == "1.0"
    assert position["booking_account"]["id"] == BUEROBEDARF
    assert position["booking_account"]["number"] == "4930"
    assert not any("ReceiptGuidance" in r.path for r in fake.requests)


def test_an_ambiguous_number_is_refused() -> None:
    types = AccountingTypes(
        [
            LegacyAccount(62, "Erlöse 19 % USt", "8400", "4400"),
            LegacyAccount(90, "Sonstige Erlöse", "4400", None),
            LegacyAccount(14, "Wareneingang", "3400", "05400"),
        ]
    )
    with pytest.raises(PreconditionError, match=r"ambiguous on bookkeeping 1\.0") as caught:
        check_number(types, "Position 1", "4400")
    assert "accounting type 62" in str(caught.value) and "accounting type 90" in str(caught.value)
    assert check_number(types, "Position 1", "5400").id == 14  # leading zeros aside


async def test_filing_an_einvoice_on_bookkeeping_1_names_the_way_that_works(
    tmp_path: Path,
) -> None:
    fake = legacy_demo()
    app = receipts_app(fake, receipt_folder(tmp_path))
    result = await call(app, "sevdesk_file_einvoice", path=MERCATURA_PDF)
    text = error_text(result)
    assert "bookkeeping 1.0" in text and "sevdesk_create_receipt_draft" in text
    assert "tax_type" in text and "Nothing was read or written" in text
    assert writes(fake) == []

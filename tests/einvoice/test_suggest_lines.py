"""The e-invoice receipt suggestion uses the one engine per invoice line (issue #37): the
magazine invoice (288.79 journal + 26.07 postage at 7 %) is booked to 4940 Zeitschriften, its
postage with it as an ancillary supply, never 4910 for all; lines of different natures at one
rate become one position per account. Expected values written by hand."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from sevdesk_mcp.domain.einvoice.model import Invoice, Line, Party, VatBreakdown
from sevdesk_mcp.domain.receipts.einvoice_voucher import suggest_voucher
from sevdesk_mcp.fake import build_demo
from tests.demo_account import fake_client
from tests.einvoice.samples import SHARED, need_samples
from tests.receipts.helpers import receipts_app
from tests.writes.tool_helpers import call

pytestmark = pytest.mark.anyio
MAGAZINE = "kosit_01.01a-INVOICE_ubl.xml"  # "Zeitschrift [...]" 288.79 + "Porto + Versandkosten"


async def test_the_magazine_with_postage_is_booked_to_4940_not_4910(tmp_path: Path) -> None:
    need_samples()
    shutil.copy(SHARED / MAGAZINE, tmp_path / MAGAZINE)
    app = receipts_app(build_demo(), tmp_path)
    result = (await call(app, "sevdesk_suggest_einvoice_receipt", path=MAGAZINE))[
        "structuredContent"
    ]
    (position,) = result["positions"]  # journal and postage share the journal's account
    assert (position["account_number"], position["net"], position["tax"]) == (
        "4940",
        "314.86",
        "22.04",
    )
    assert position["tax_rate"] == "7"
    assert "Porto" in position["text"] and "Zeitschrift" in position["text"]
    assert "4910" not in (position.get("alternatives") or [])[:1]
    assert "problems" not in result  # none: the draft can be filed as suggested


def _invoice(*lines: tuple[str, str]) -> Invoice:
    nets = [Decimal(net) for _, net in lines]
    return Invoice(
        syntax="ubl-invoice",
        profile="EN16931",
        issue_date="2026-04-02",
        currency="EUR",
        seller=Party(name="Systemhaus Weber GmbH", vat_id="DE301234987"),
        lines=[
            Line(name=name, net=Decimal(net), category="S", rate=Decimal(19)) for name, net in lines
        ],
        vat_breakdown=[
            VatBreakdown(
                taxable=sum(nets, Decimal(0)),
                tax=Decimal("28.50"),
                category="S",
                rate=Decimal(19),
            )
        ],
    )


async def test_lines_of_different_natures_at_one_rate_become_one_position_per_account() -> None:
    client = fake_client(build_demo())
    invoice = _invoice(("Microsoft 365 Business Standard, 1 Jahr", "100.00"),
                       ("Druckerpapier A4, 5 Pakete", "50.00"))  # fmt: skip
    found = await suggest_voucher(client, invoice)
    got = [(p.account_number, p.net, p.tax, p.gross) for p in found.positions]
    assert got == [
        ("4964", Decimal("100.00"), Decimal("19.00"), Decimal("119.00")),
        ("4930", Decimal("50.00"), Decimal("9.50"), Decimal("59.50")),
    ]
    assert found.problems == []


async def test_a_line_with_no_words_of_its_own_follows_the_main_line() -> None:
    client = fake_client(build_demo())
    invoice = _invoice(("Druckerpapier A4, 10 Pakete", "120.00"), ("Pos. 2", "30.00"))
    found = await suggest_voucher(client, invoice)
    (position,) = found.positions
    assert (position.account_number, position.net, position.tax) == (
        "4930",
        Decimal("150.00"),
        Decimal("28.50"),
    )

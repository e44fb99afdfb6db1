"""The first suggestion's accuracy over the labelled set (issue #37): account AND tax rule of
the main position right, over both charts, at least 0.9. Each receipt is asked as a bookkeeper
asks for its main position: the header and the position's text, its net amount and printed
rate, the supplier as printed (name, VAT id, IBAN, country), against a fake account of the
receipt's chart holding the history receipts. The expected answers are the set's, written by
hand (``tests/receipts/labelled``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Final

import pytest

from sevdesk_mcp.domain.receipts.suggest import (
    Company,
    ReceiptQuery,
    SupplierFacts,
    suggest_receipt,
)
from sevdesk_mcp.sevdesk.client import SevdeskClient
from tests.demo_account import fake_client
from tests.receipts.labelled import (
    CHARTS,
    LABELLED_RECEIPTS,
    LABELLED_TOKEN,
    Chart,
    LabelledReceipt,
    build_labelled_fake,
    receipts_of,
)

pytestmark = pytest.mark.anyio
MIN_ACCURACY: Final = Decimal("0.9")


def query_of(receipt: LabelledReceipt) -> ReceiptQuery:
    """:returns: the question a bookkeeper asks for the receipt's main position."""
    main = receipt.lines[0]
    return ReceiptQuery(
        description=f"{receipt.header}\n{main.text}",
        rate=main.printed_rate,
        net=main.net,
        day=receipt.day,
        supplier=SupplierFacts(
            name=receipt.supplier,
            vat_id=receipt.vat_id,
            iban=receipt.iban,
            country=receipt.country,
        ),
    )


async def _first(client: SevdeskClient, receipt: LabelledReceipt) -> tuple[str, int | None]:
    company = Company(sole_proprietor=receipt.company == "sole")
    found = await suggest_receipt(client, query_of(receipt), company)
    if not found.suggestions:
        return "none", None
    first = found.suggestions[0]
    return first.account_number, first.tax_rule_id


async def _wrong(chart: Chart) -> list[str]:
    books = build_labelled_fake(chart)
    client = fake_client(books.fake, token=LABELLED_TOKEN)
    wrong = []
    for receipt in receipts_of(chart):
        got = await _first(client, receipt)
        if got != (receipt.account, receipt.rule):
            wrong.append(f"{receipt.key}: got {got}, expected {(receipt.account, receipt.rule)}")
    return wrong


async def test_the_first_suggestion_is_right_for_at_least_nine_in_ten_labelled_receipts() -> None:
    wrong: list[str] = []
    for chart in CHARTS:
        missed = await _wrong(chart)
        size = len(receipts_of(chart))
        print(f"{chart}: {size - len(missed)} of {size} right ({(size - len(missed)) / size:.3f})")
        wrong += missed
    total = len(LABELLED_RECEIPTS)
    accuracy = Decimal(total - len(wrong)) / Decimal(total)
    print(f"overall: {total - len(wrong)} of {total} right ({accuracy:.3f})")
    print("\n".join(wrong))
    assert total >= 80
    assert accuracy >= MIN_ACCURACY, wrong

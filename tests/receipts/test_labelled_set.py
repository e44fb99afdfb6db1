"""The labelled receipts are consistent: each expected answer is one the fake's chart allows.

These test the data (``tests/receipts/labelled``), not the suggestion engine.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

import pytest

from sevdesk_mcp.fake.accounts import EXPENSE, account_by_number, guided_accounts
from tests.receipts.labelled import (
    CHARTS,
    HISTORY_RECEIPTS,
    LABELLED_RECEIPTS,
    Chart,
    LabelledReceipt,
    build_labelled_fake,
    receipts_of,
)
from tests.receipts.labelled.model import EXPENSE_MAX_NET, GWG_MAX_NET

RATE_WORDS: Final = {Decimal(0): "ZERO", Decimal(7): "SEVEN", Decimal(19): "NINETEEN"}
REVERSE_CHARGE: Final = frozenset({12, 13, 14})
ASSETS: Final = {"skr03": {"0027", "0420", "0490"}, "skr04": {"0135", "0650", "0690"}}
GWG: Final = {"skr03": "0480", "skr04": "0670"}


def test_the_set_is_large_enough_and_covers_both_charts() -> None:
    assert len(LABELLED_RECEIPTS) >= 90
    assert len(receipts_of("skr03")) >= 60 and len(receipts_of("skr04")) >= 30
    keys = [r.key for r in LABELLED_RECEIPTS]
    assert len(set(keys)) == len(keys)
    assert {r.rule for r in LABELLED_RECEIPTS} >= {8, 9, 10, 12, 14}


@pytest.mark.parametrize("receipt", LABELLED_RECEIPTS, ids=lambda r: r.key)
def test_every_expected_booking_is_one_the_guidance_allows(receipt: LabelledReceipt) -> None:
    guided = guided_accounts(EXPENSE, receipt.chart)
    for line in receipt.lines:
        account = account_by_number(line.account, receipt.chart)
        assert account is not None and account in guided, line.account
        rates = dict(account.rules).get(receipt.rule, ())
        assert RATE_WORDS[line.rate] in rates, (line.account, receipt.rule, line.rate)


@pytest.mark.parametrize("receipt", LABELLED_RECEIPTS, ids=lambda r: r.key)
def test_rules_and_rates_agree_with_what_the_receipt_shows(receipt: LabelledReceipt) -> None:
    printed = {line.printed_rate for line in receipt.lines}
    if receipt.rule in REVERSE_CHARGE or receipt.rule == 10:
        assert printed == {Decimal(0)} and all(line.rate == 0 for line in receipt.lines)
    elif receipt.rule == 8:  # acquisition: no VAT printed, the German rate applies
        assert printed == {Decimal(0)} and all(line.rate > 0 for line in receipt.lines)
    else:
        assert all(line.rate == line.printed_rate > 0 for line in receipt.lines)
    if receipt.rule in REVERSE_CHARGE | {8}:
        assert receipt.country not in (None, "DE")


@pytest.mark.parametrize("receipt", LABELLED_RECEIPTS, ids=lambda r: r.key)
def test_the_treatment_follows_the_net_amount(receipt: LabelledReceipt) -> None:
    if receipt.account in ASSETS[receipt.chart]:
        assert receipt.treatment == "asset" and receipt.net > GWG_MAX_NET
    elif receipt.account == GWG[receipt.chart]:
        assert receipt.treatment == "gwg" and EXPENSE_MAX_NET < receipt.net <= GWG_MAX_NET
    else:
        assert receipt.treatment == "expense"


@pytest.mark.parametrize("chart", CHARTS)
def test_the_fake_holds_the_history_each_history_receipt_relies_on(chart: Chart) -> None:
    books = build_labelled_fake(chart)
    store = books.fake.store
    assert store.chart == chart and len(books.history) == sum(
        1 for b in HISTORY_RECEIPTS if b.chart == chart
    )
    for receipt in (r for r in receipts_of(chart) if r.history):
        contact = store.contacts.get(books.contacts[receipt.supplier])
        assert (contact.vatNumber, contact.bankAccount) == (receipt.vat_id, receipt.iban)
        booked = [v for v in store.vouchers if v.supplier and v.supplier.id == contact.id]
        assert len(booked) >= 2 and all(v.status == 100 and v.enshrined for v in booked)
        for voucher in booked:
            (position,) = store.voucher_positions_of(voucher)
            account = account_by_number(receipt.account, chart)
            assert account is not None and position.accountDatev is not None
            assert position.accountDatev.id == account.id

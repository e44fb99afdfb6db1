"""bookAmount, resetToOpen and the sign rule (§2.4, §2.7, Q9, Q18, Q26-Q29)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from sevdesk_mcp.fake.wire import BERLIN
from tests.fake.helpers import api, assert_error, objects
from tests.fake.lifecycle_helpers import ref

pytestmark = pytest.mark.anyio

VOUCHER_DATE = "2026-11-25T12:00:00+01:00"  # Q18: vouchers take a date-time string
UNIX_DAY = int(datetime(2026, 11, 25, tzinfo=BERLIN).timestamp())


def booking(
    amount: object, account: int, *, transaction: int | None = None, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "amount": amount,
        "date": UNIX_DAY,
        "type": "FULL_PAYMENT",
        "checkAccount": ref("CheckAccount", account),
        "createFeed": False,
        **extra,
    }
    if transaction is not None:
        body["checkAccountTransaction"] = ref("CheckAccountTransaction", transaction)
    return body


async def test_book_an_invoice_against_its_transaction(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q9 answer; the invoice is paid, the transaction booked and logged (Q4 amountPaid)."""
    invoice = demo.store.invoices.get(facts.matching_invoice_id)
    tx = facts.matching_transaction_id
    body = booking(str(invoice.sumGross), facts.bank_account_id, transaction=tx)
    async with api(demo) as client:
        response = await client.put(f"/Invoice/{invoice.id}/bookAmount", json=body)
        (booked,) = await objects(client, f"/Invoice/{invoice.id}")
        (transaction,) = await objects(client, f"/CheckAccountTransaction/{tx}")
        (entry,) = await objects(
            client, "/CheckAccountTransactionLog", **{"checkAccountTransaction[id]": tx}
        )
        again = await client.put(f"/Invoice/{invoice.id}/bookAmount", json=body)
    log = response.json()["objects"]
    assert response.status_code == 200
    assert (log["objectName"], log["fromStatus"], log["toStatus"]) == ("InvoiceLog", "200", "1000")
    assert log["amountPayed"] == "763.98" and log["invoice"]["id"] == str(invoice.id)
    assert log["bookingDate"] == "2026-11-25T00:00:00+01:00"
    assert booked["status"] == "1000" and booked["paidAmount"] == 763.98
    assert transaction["status"] == "400"
    assert entry["amountPaid"] == 763.98 and entry["object"] == {
        "id": str(invoice.id),
        "objectName": "Invoice",
    }
    assert_error(again, 422, 750)


async def test_partial_booking_and_the_wrong_sign(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q26: a partial amount gives 750; a negative amount on an invoice books without error
    and leaves a negative ``paidAmount`` with status 750."""
    first, second = facts.invoice_ids_by_status[200][2:4]
    register = facts.register_id
    async with api(demo) as client:
        part = await client.put(f"/Invoice/{first}/bookAmount", json=booking("100", register))
        wrong = await client.put(f"/Invoice/{second}/bookAmount", json=booking("-100", register))
    assert part.json()["objects"]["toStatus"] == "750"
    assert wrong.status_code == 200 and wrong.json()["objects"]["amountPayed"] == "100"
    invoice = demo.store.invoices.get(second)
    assert invoice.status == 750 and invoice.paidAmount == Decimal(-100)


async def test_voucher_sign_follows_credit_debit(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q26: an expense voucher (C) is paid with a negative amount; a positive one leaves it
    750 with a negative ``paidAmount``. Voucher dates are date-time strings (Q18)."""
    expense = [v for v in demo.store.vouchers if v.status == 100 and v.creditDebit == "C"]
    right, wrong = expense[:2]
    register = facts.register_id
    async with api(demo) as client:
        paid = await client.put(
            f"/Voucher/{right.id}/bookAmount",
            json=booking(str(-right.sumGross), register, date=VOUCHER_DATE),
        )
        unpaid = await client.put(
            f"/Voucher/{wrong.id}/bookAmount",
            json=booking(str(wrong.sumGross), register, date=VOUCHER_DATE),
        )
        again = await client.put(
            f"/Voucher/{right.id}/bookAmount", json=booking("-1", register, date=VOUCHER_DATE)
        )
    log = paid.json()["objects"]
    assert (log["objectName"], log["toStatus"]) == ("VoucherLog", "1000")
    assert Decimal(log["amountPayed"]) == right.sumGross and right.payDate is not None
    assert unpaid.json()["objects"]["toStatus"] == "750"
    assert wrong.status == 750 and wrong.paidAmount == -wrong.sumGross
    assert_error(again, 422, 751)


async def test_credit_note_is_paid_with_a_negative_amount(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    note = next(n for n in demo.store.credit_notes if n.status == 200)
    async with api(demo) as client:
        response = await client.put(
            f"/CreditNote/{note.id}/bookAmount",
            json=booking(str(-note.sumGross), facts.register_id),
        )
    log = response.json()["objects"]
    assert (log["objectName"], log["toStatus"]) == ("CreditNoteLog", "1000")
    assert note.status == 1000 and note.paidAmount == note.sumGross


async def test_offline_booking_creates_a_booked_transaction(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    """Q27: on a register the fake creates the transaction; online needs one."""
    ident = facts.invoice_ids_by_status[200][4]
    before = len(demo.store.transactions)
    async with api(demo) as client:
        refused = await client.put(
            f"/Invoice/{ident}/bookAmount", json=booking("10", facts.bank_account_id)
        )
        await client.put(f"/Invoice/{ident}/bookAmount", json=booking("10", facts.register_id))
    assert "checkAccountTransaction" in assert_error(refused, 400)["message"]
    (created,) = list(demo.store.transactions)[before:]
    assert created.status == 400 and created.amount == Decimal(10)
    assert created.checkAccount.id == facts.register_id


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({"date": "2026-11-25"}, 400),  # Q18: invoices take Unix seconds
        ({"type": "PARTIAL_PAYMENT"}, 400),
        ({"type": "CF"}, 422),  # not on bookkeeping 2.0
        ({"amount": "0"}, 422),
        ({"amount": None}, 400),
        ({"checkAccount": 5001}, 400),
    ],
)
async def test_book_amount_validates(
    demo: FakeSevdesk, facts: DemoFacts, change: dict[str, object], status: int
) -> None:
    ident = facts.invoice_ids_by_status[200][4]
    async with api(demo) as client:
        body = {**booking("10", facts.register_id), **change}
        assert_error(await client.put(f"/Invoice/{ident}/bookAmount", json=body), status)
    assert not demo.requests[-1].applied


async def test_drafts_and_unknown_accounts_are_refused(demo: FakeSevdesk, facts: DemoFacts) -> None:
    draft_voucher = facts.voucher_ids_by_status[50][0]
    draft_invoice = facts.invoice_ids_by_status[100][0]
    async with api(demo) as client:
        body = booking("-5", facts.register_id, date=VOUCHER_DATE)
        assert_error(await client.put(f"/Voucher/{draft_voucher}/bookAmount", json=body), 422)
        body = booking("5", facts.register_id)
        assert_error(await client.put(f"/Invoice/{draft_invoice}/bookAmount", json=body), 422)
        voucher = facts.voucher_ids_by_status[100][0]
        body = booking("-5", facts.register_id, date=UNIX_DAY)
        assert_error(await client.put(f"/Voucher/{voucher}/bookAmount", json=body), 400)
        body = booking("5", 1)
        ident = facts.invoice_ids_by_status[200][4]
        assert_error(await client.put(f"/Invoice/{ident}/bookAmount", json=body), 404, 151)


async def test_reset_to_open_takes_every_booking_back(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q29: paidAmount 0, status 200, transactions back to 100, their log entries gone."""
    invoice = demo.store.invoices.get(facts.invoice_ids_by_status[750][0])
    logs = [e for e in demo.store.transaction_logs if e.object == invoice.ref()]
    assert logs
    async with api(demo) as client:
        response = await client.put(f"/Invoice/{invoice.id}/resetToOpen")
        remaining = await objects(
            client,
            "/CheckAccountTransactionLog",
            **{"checkAccountTransaction[id]": logs[0].checkAccountTransaction.id},
        )
        (transaction,) = await objects(
            client, f"/CheckAccountTransaction/{logs[0].checkAccountTransaction.id}"
        )
        again = await client.put(f"/Invoice/{invoice.id}/resetToOpen")
    reset = response.json()["objects"]
    assert (reset["status"], reset["paidAmount"], reset["payDate"]) == ("200", 0, None)
    assert remaining == [] and transaction["status"] == "100"
    assert again.status_code == 200 and not demo.requests[-1].applied


async def test_reset_to_open_refusals(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q29: code 170 with a credit note; drafts 422; a voucher goes back to 100."""
    with_note = next(n.refSrcInvoice for n in demo.store.credit_notes if n.refSrcInvoice)
    assert with_note is not None
    paid_voucher = facts.voucher_ids_by_status[1000][0]
    async with api(demo) as client:
        assert_error(await client.put(f"/Invoice/{with_note.id}/resetToOpen"), 422, 170)
        draft = facts.invoice_ids_by_status[100][0]
        assert_error(await client.put(f"/Invoice/{draft}/resetToOpen"), 422)
        voucher = await client.put(f"/Voucher/{paid_voucher}/resetToOpen")
    assert voucher.json()["objects"]["status"] == "100"
    assert voucher.json()["objects"]["paidAmount"] == 0


async def test_timeout_after_a_booking_still_books(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q33: the fault switch works on the new writes."""
    ident = facts.invoice_ids_by_status[200][4]
    demo.faults.timeout_after_write_next()
    async with api(demo) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.put(f"/Invoice/{ident}/bookAmount", json=booking("10", facts.register_id))
    assert demo.store.invoices.get(ident).status == 750 and demo.requests[-1].applied

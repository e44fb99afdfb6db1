"""sevdesk_create_payment_reminder, sevdesk_invoice_from_order and
sevdesk_list_recurring_invoices on the demo books, through the real client.

Hand-worked figures: RE-1028 (700028) is open, 663.61 EUR, dated 20.08.2026 with 14 days to pay
(due 03.09.2026, overdue on the demo day 27.11.2026); RE-1030 (700030) 2541.84 EUR with 1271.00
paid leaves 1270.84; RE-1036 (700036) is due 05.12.2026. AN-1003 (740003, accepted) has three
positions, 690.00 + 7.5 x 68.00 + 120 x 0.65 = 1278.00 net, 19 % VAT 242.82, 1520.82 gross.
The recurring invoices: 240.00 net + 45.60 = 285.60 quarterly, next 01.01.2027; 95.00 net +
18.05 = 113.05 monthly, deactivated.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from sevdesk_mcp.domain.documents.recurring import every
from sevdesk_mcp.fake import build_demo
from sevdesk_mcp.fake.documents import OPEN
from tests.documents.commit_helpers import approved, commit_app, dry_run
from tests.writes.tool_helpers import call, error_text, facts, said, undo, write_app, writes

pytestmark = pytest.mark.anyio
REMIND = "sevdesk_create_payment_reminder"
FROM_ORDER = "sevdesk_invoice_from_order"
RECURRING = "sevdesk_list_recurring_invoices"
REMINDER_PATH = "/Invoice/Factory/createInvoiceReminder"
FROM_ORDER_PATH = "/Invoice/Factory/createInvoiceFromOrder"
RE_1028 = 700028
ACCEPTED = 740003  # AN-1003
NEW_ID = 700047  # the next invoice id after the demo's 700046 (the OSS sale, demo_oss.py)


def _result(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("isError"), result
    done: dict[str, Any] = result["structuredContent"]["result"]
    return done


async def test_the_reminder_preview_names_invoice_amount_level_and_what_is_fixed() -> None:
    fake = build_demo()
    preview = (await dry_run(write_app(fake), REMIND, invoice_id=RE_1028))["preview"]
    action, warnings = said(preview)
    assert action == (
        "Create a payment reminder for invoice RE-1028 as a draft (type MA); nothing is sent"
    )
    shown = facts(preview)
    assert shown["Invoice"] == "invoice RE-1028 (id 700028), open, due 2026-09-03"
    assert shown["Open amount"] == "663.61 EUR"
    assert shown["Reminder"] == "payment reminder, level 1"
    assert "sevDesk sets the fee (none) and the new deadline itself" in warnings[0]
    assert undo(preview) == "The reminder is a draft: delete it to take it back."
    assert writes(fake) == []


async def test_a_reminder_is_created_once_as_a_draft_of_type_ma() -> None:
    fake = build_demo()
    done = _result(await call(write_app(fake), REMIND, invoice_id=RE_1028))
    assert writes(fake) == [f"POST {REMINDER_PATH}"]
    (sent,) = [r for r in fake.requests if r.method == "POST"]
    assert sent.query == {"invoice[id]": str(RE_1028), "invoice[objectName]": "Invoice"}
    reminder = fake.store.invoices.get(NEW_ID)
    assert (reminder.invoiceType, reminder.status, reminder.invoiceNumber) == ("MA", 100, None)
    assert reminder.origin is not None and reminder.origin.id == RE_1028
    assert reminder.dunningLevel == 1 and reminder.reminderDebit == Decimal("663.61")
    assert reminder.header == "Zahlungserinnerung zur Rechnung Nr. RE-1028"
    assert (done["id"], done["type"], done["status"]) == (NEW_ID, "MA", "draft")
    assert done["written"] == [
        f"payment reminder draft {NEW_ID} (level 1) for Rechnung (invoice) RE-1028 (id 700028)"
    ]


async def test_a_second_reminder_waits_for_the_draft_then_takes_the_next_level() -> None:
    fake = build_demo()
    app = write_app(fake)
    _result(await call(app, REMIND, invoice_id=RE_1028))
    again = error_text(await call(app, REMIND, invoice_id=RE_1028))
    assert f"already has the payment reminder draft (id {NEW_ID})" in again
    fake.store.invoices.get(NEW_ID).status = OPEN  # the first one was sent
    preview = (await dry_run(app, REMIND, invoice_id=RE_1028))["preview"]
    assert facts(preview)["Reminder"] == "dunning letter no. 1, level 2"
    _result(await call(app, REMIND, invoice_id=RE_1028))
    assert fake.store.invoices.get(NEW_ID + 1).header == "1. Mahnung zur Rechnung Nr. RE-1028"


async def test_a_partly_paid_invoice_is_reminded_of_its_rest() -> None:
    fake = build_demo()
    preview = (await dry_run(write_app(fake), REMIND, invoice_id=700030))["preview"]
    assert facts(preview)["Open amount"] == "1270.84 EUR"


@pytest.mark.parametrize(
    ("invoice", "expected"),
    [
        (700036, "is not overdue: it is due on 05.12.2026"),
        (700032, "is bezahlt (paid); only open or partly paid invoices get a payment reminder"),
        (700041, "is Entwurf (draft); only open or partly paid invoices"),
        (700007, "is of type SR, not an invoice to a customer"),
        (700044, "is of type WKR, not an invoice to a customer"),
        (999_999, "no such object"),
    ],
)
async def test_reminder_refusals_name_the_problem_and_send_nothing(
    invoice: int, expected: str
) -> None:
    fake = build_demo()
    assert expected in error_text(await call(write_app(fake), REMIND, invoice_id=invoice))
    assert writes(fake) == []


async def test_the_invoice_from_order_preview_names_positions_and_the_order_after() -> None:
    fake = build_demo()
    preview = (await dry_run(write_app(fake), FROM_ORDER, order_id=ACCEPTED))["preview"]
    action, warnings = said(preview)
    assert action == (
        "Create an invoice draft from order AN-1003 with its positions; nothing is finalized"
    )
    shown = facts(preview)
    assert shown["Order"] == "order AN-1003, accepted"
    assert shown["Net amount"] == "1278.00 EUR"
    assert shown["Invoice"] == "new draft with 3 positions over 1520.82 EUR, linked to the order"
    assert shown["Order after"] == "invoiced"
    assert warnings == [] and writes(fake) == []


async def test_an_accepted_offer_becomes_an_invoice_draft_and_the_offer_invoiced() -> None:
    fake = build_demo()
    done = _result(await call(write_app(fake), FROM_ORDER, order_id=ACCEPTED))
    assert writes(fake) == [f"POST {FROM_ORDER_PATH}"]
    (sent,) = [r for r in fake.requests if r.method == "POST"]
    assert sent.body == b'{"order":{"id":740003,"objectName":"Order"}}'
    invoice = done["invoice"]
    assert (invoice["id"], invoice["status"], invoice.get("number")) == (NEW_ID, "draft", None)
    assert invoice["net"] == {"amount": "1278.00", "currency": "EUR"}
    assert invoice["gross"] == {"amount": "1520.82", "currency": "EUR"}
    assert done["order"]["status"] == "invoiced"
    stored = fake.store.invoices.get(NEW_ID)
    assert stored.origin is not None and stored.origin.id == ACCEPTED
    names = [p.name for p in fake.store.positions_of(stored)]
    assert names == [p.name for p in fake.store.positions_of(fake.store.orders.get(ACCEPTED))]


async def test_an_optional_position_is_left_out_and_said() -> None:
    fake = build_demo()  # AN-1004 (740004, sent): its last position (Anfahrt) is optional
    preview = (await dry_run(write_app(fake), FROM_ORDER, order_id=740004))["preview"]
    assert facts(preview)["Invoice"].startswith("new draft with 2 positions over 3896.06 EUR")
    assert said(preview)[1] == ["1 optional position is not invoiced."]


def _delivery_note(fake: Any) -> int:
    order = fake.store.orders.get(740005)
    order.orderType = "LI"
    return 740005


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (740001, "is already fully invoiced (berechnet)"),
        (740002, "is abgelehnt (rejected); a rejected offer is not invoiced"),
        (999_999, "no such object"),
    ],
)
async def test_from_order_refusals_name_why_and_send_nothing(order: int, expected: str) -> None:
    fake = build_demo()
    assert expected in error_text(await call(write_app(fake), FROM_ORDER, order_id=order))
    assert writes(fake) == []


async def test_a_delivery_note_and_a_partly_invoiced_order_are_refused() -> None:
    fake = build_demo()
    app = write_app(fake)
    text = error_text(await call(app, FROM_ORDER, order_id=_delivery_note(fake)))
    assert "is a delivery note (Lieferschein); it is not invoiced" in text
    fake.store.orders.get(ACCEPTED).status = 750
    text = error_text(await call(app, FROM_ORDER, order_id=ACCEPTED))
    assert "partially invoiced (teilweise berechnet); a whole invoice would bill" in text
    assert writes(fake) == []


async def test_an_order_an_invoice_already_refers_to_is_refused() -> None:
    fake = build_demo()
    fake.store.orders.get(740001).status = 500  # RE-1011 (700011) came from AN-1001
    text = error_text(await call(write_app(fake), FROM_ORDER, order_id=740001))
    assert "already has the invoice RE-1011 (id 700011); invoicing it again would bill" in text
    assert writes(fake) == []


async def test_recurring_invoices_are_listed_with_interval_next_date_and_sums() -> None:
    fake = build_demo()
    result = await call(write_app(fake), RECURRING)
    assert not result.get("isError"), result
    data = result["structuredContent"]
    assert data["count"] == 2
    active, off = data["recurring"]
    assert (active["id"], active["active"], active["interval"]) == (700044, True, "P0Y3M")
    assert (active["every"], active["next_date"]) == ("quarterly", "2027-01-01")
    assert active["contact"] == "⟦Café Kastanie GmbH⟧"
    assert active["gross"] == {"amount": "285.60", "currency": "EUR"}
    assert (off["id"], off["active"], off["every"], off.get("next_date")) == (
        700045,
        False,
        "monthly",
        None,
    )
    assert off["net"] == {"amount": "95.00", "currency": "EUR"}


async def test_recurring_invoices_stay_out_of_the_invoice_search() -> None:
    fake = build_demo()
    result = await call(write_app(fake), "sevdesk_search_documents", status="draft")
    ids = [d["id"] for d in result["structuredContent"]["documents"]]
    assert 700044 not in ids and 700041 in ids


async def test_the_reminder_draft_is_sent_through_the_finalize_tool() -> None:
    fake = build_demo()
    app = commit_app(fake)
    _result(await call(app, REMIND, invoice_id=RE_1028))
    _, result = await approved(app, "sevdesk_finalize_document", kind="invoice", document_id=NEW_ID)
    done = _result(result)
    assert (done["type"], done["status"], done["enshrined"]) == ("MA", "open", True)
    assert done["gross"] == {"amount": "0.00", "currency": "EUR"}  # it claims RE-1028's money


async def test_a_lost_answer_to_the_reminder_names_what_to_check() -> None:
    fake = build_demo()
    fake.faults.timeout_after_write_next()
    text = error_text(await call(write_app(fake), REMIND, invoice_id=RE_1028))
    assert "no answer arrived" in text
    assert "the reminders (type MA) of Rechnung (invoice) RE-1028 (id 700028)" in text
    assert writes(fake) == [f"POST {REMINDER_PATH}"]


@pytest.mark.parametrize(
    ("interval", "words"),
    [
        ("P0Y0M1W", "weekly"),
        ("P0Y0M2W", "every 2 weeks"),
        ("P0Y2M", "every 2 months"),
        ("P1Y", "yearly"),
        ("P3Y", "every 3 years"),
        ("P0Y", None),
        ("monthly", None),
        (None, None),
    ],
)
def test_intervals_are_said_in_words(interval: str | None, words: str | None) -> None:
    assert every(interval) == words

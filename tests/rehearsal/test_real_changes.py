"""Reads not written in the rehearsal show the real data, also after a change made at sevDesk
during the rehearsal; reads of records written in it show the rehearsal's version."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.fake.models import Contact
from sevdesk_mcp.fake.wire import Ref
from sevdesk_mcp.rehearsal.seed import row_from_wire
from sevdesk_mcp.safety.tiers import Tier
from tests.rehearsal.helpers import client_on, ids_of, many, one
from tests.rehearsal.test_month_end import Run

pytestmark = pytest.mark.anyio


@pytest.fixture
async def run() -> Run:
    return Run()


async def test_a_change_at_sevdesk_is_seen_for_a_record_not_written(run: Run) -> None:
    ids = await run.month_end()
    contact_id = run.facts.customer_ids[0]
    first = one(await run.client.get(f"/Contact/{contact_id}"))  # seeded into the overlay now
    real = run.fake.store.contacts.get(contact_id)
    real.name = "Renamed at sevDesk GmbH"
    run.fake.store.save(real)
    again = one(await run.client.get(f"/Contact/{contact_id}"))
    assert first["name"] != again["name"] == "Renamed at sevDesk GmbH"
    overlay = run.rehearsal.engine
    assert overlay is not None
    assert overlay.store.contacts.get(contact_id).name == "Renamed at sevDesk GmbH"
    assert ids.paid_invoice != contact_id


async def test_a_change_at_sevdesk_is_not_seen_for_a_record_written(run: Run) -> None:
    ids = await run.month_end()
    real = run.fake.store.invoices.get(ids.paid_invoice)
    real.header = "Changed at sevDesk"
    run.fake.store.save(real)
    rehearsed = one(await run.client.get(f"/Invoice/{ids.paid_invoice}"))
    assert rehearsed["header"] != "Changed at sevDesk" and rehearsed["status"] == "1000"
    listed = many(await run.client.get("/Invoice", {"status": 1000, "limit": 1000}))
    (mine,) = [r for r in listed if int(r["id"]) == ids.paid_invoice]
    assert mine["header"] != "Changed at sevDesk"


async def test_a_list_follows_sevdesk_for_records_not_written(run: Run) -> None:
    ids = await run.month_end()
    other = next(
        i
        for i in run.fake.store.invoices
        if i.status == 200 and i.id not in {ids.paid_invoice, ids.overdue_invoice}
    )
    before = ids_of(await run.client.get("/Invoice", {"status": 200, "limit": 1000}))
    other.status = 1000  # paid at sevDesk during the rehearsal
    other.paidAmount = other.sumGross
    run.fake.store.save(other)
    after = ids_of(await run.client.get("/Invoice", {"status": 200, "limit": 1000}))
    assert other.id in before and other.id not in after
    assert ids.finalized_invoice in after


async def test_a_number_taken_at_sevdesk_during_the_rehearsal_moves_the_rehearsals(
    run: Run,
) -> None:
    drafts = run.facts.invoice_ids_by_status[100]
    await client_on(run.fake.transport()).send(
        "PUT", f"/Invoice/{drafts[1]}/sendBy", tier=Tier.COMMIT,
        json={"sendType": "VPDF", "sendDraft": False},
    )  # fmt: skip
    taken = run.fake.store.invoices.get(drafts[1]).invoiceNumber
    ids = await run.month_end()
    assert ids.finalized_invoice == drafts[0]
    mine = one(await run.client.get(f"/Invoice/{drafts[0]}"))
    assert taken == f"RE-{run.real_next}"
    assert mine["invoiceNumber"] == f"RE-{run.real_next + 1}"


def test_seeding_keeps_the_rows_fields_and_references_and_drops_the_rest() -> None:
    row = row_from_wire(
        Contact,
        {
            "id": "41",
            "objectName": "Contact",
            "name": "Holz AG",
            "category": {"id": "3", "objectName": "Category"},
            "defaultCashbackPercent": "2.5",
            "exemptVat": "0",
            "somethingNew": "dropped",
        },
    )
    assert isinstance(row, Contact)
    assert (row.id, row.name, row.category) == (41, "Holz AG", Ref("Category", 3))
    assert row.defaultCashbackPercent == Decimal("2.5") and row.exemptVat is False
    assert not hasattr(row, "somethingNew")


def test_a_record_the_engine_cannot_read_is_not_seeded() -> None:
    assert row_from_wire(Contact, {"id": "41", "objectName": "Contact", "exemptVat": "x"}) is None


async def test_a_write_applies_to_the_record_as_sevdesk_holds_it_now(run: Run) -> None:
    draft = run.facts.invoice_ids_by_status[100][0]
    assert draft in ids_of(await run.client.get("/Invoice", {"status": 100, "limit": 1000}))
    real = run.fake.store.invoices.get(draft)
    real.header = "Header changed at sevDesk"
    run.fake.store.save(real)
    await run.client.send(
        "PUT", f"/Invoice/{draft}/sendBy", tier=Tier.COMMIT,
        json={"sendType": "VPDF", "sendDraft": False},
    )  # fmt: skip
    rehearsed = one(await run.client.get(f"/Invoice/{draft}"))
    assert (rehearsed["status"], rehearsed["header"]) == ("200", "Header changed at sevDesk")
    positions = many(await run.client.get(f"/Invoice/{draft}/getPositions"))
    real_positions = many(
        await client_on(run.fake.transport()).get(f"/Invoice/{draft}/getPositions")
    )
    assert positions and [p["id"] for p in positions] == [p["id"] for p in real_positions]

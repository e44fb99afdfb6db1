"""A scripted month-end in rehearsal, through the product's client: the "real" account (the
demo books behind a counting proxy) sees only reads and is not changed, the log lists each
step, and the figures are those of the same script run straight against a copy."""

from __future__ import annotations

from decimal import Decimal

import pytest

from sevdesk_mcp.fake import FakeSevdesk, build_demo_with_facts
from sevdesk_mcp.rehearsal.tables import CREATED_ID_BASE
from sevdesk_mcp.rehearsal.transport import Rehearsal
from sevdesk_mcp.sevdesk.client import SevdeskClient
from tests.rehearsal.helpers import (
    CountingProxy,
    Ids,
    client_on,
    figures,
    ids_of,
    many,
    month_end,
    one,
)

pytestmark = pytest.mark.anyio


class Run:
    """The demo books as the real account, a rehearsal in front, and the month-end done."""

    def __init__(self) -> None:
        self.fake, self.facts = build_demo_with_facts()
        self.proxy = CountingProxy(self.fake.transport())
        self.rehearsal = Rehearsal(self.proxy, today=lambda: self.fake.today)
        self.client = client_on(self.rehearsal)
        self.real_next = self.fake.store.peek_number("RE-")

    async def month_end(self) -> Ids:
        return await month_end(self.client, self.facts, self.fake)


@pytest.fixture
async def run() -> Run:
    return Run()


def straight(fake: FakeSevdesk) -> SevdeskClient:
    return client_on(fake.transport())


async def test_the_real_account_sees_only_reads_and_stays_unchanged(run: Run) -> None:
    revision = run.fake.store.revision
    await run.month_end()
    assert set(run.proxy.methods) == {"GET"} and run.proxy.methods["GET"] > 0
    assert run.rehearsal.upstream_refused() == 0
    assert not any(r.applied for r in run.fake.requests)
    assert run.fake.store.revision == revision
    assert all(m == "GET" for m, _ in run.proxy.seen)


async def test_the_log_lists_each_step(run: Run) -> None:
    ids = await run.month_end()
    steps = [(c.action, c.object_name, c.object_id, c.method) for c in run.rehearsal.changes()]
    assert steps == [
        ("uploaded", "Voucher", None, "POST"),
        ("created", "Voucher", ids.voucher, "POST"),
        ("finalized", "Voucher", ids.voucher, "POST"),
        ("booked", "Invoice", ids.paid_invoice, "PUT"),
        ("finalized", "Invoice", ids.finalized_invoice, "PUT"),
        ("created", "Invoice", ids.reminder, "POST"),
    ]
    booked, finalized = run.rehearsal.changes()[3:5]
    assert booked.summary == f"Invoice {booked.number} booked (763.98 EUR booked)"
    assert finalized.number == f"RE-{run.real_next}"
    assert finalized.path == f"/Invoice/{ids.finalized_invoice}/sendBy"
    assert finalized.summary == f"Invoice RE-{run.real_next} finalized (6,052.34 EUR gross)"
    assert all(
        c.at.tzinfo is not None and c.at.utcoffset() is not None for c in run.rehearsal.changes()
    )


async def test_the_finalized_draft_gets_the_real_ranges_next_number(run: Run) -> None:
    ids = await run.month_end()
    finalized = one(await run.client.get(f"/Invoice/{ids.finalized_invoice}"))
    assert (finalized["status"], finalized["invoiceNumber"]) == ("200", f"RE-{run.real_next}")
    real = one(await straight(run.fake).get(f"/Invoice/{ids.finalized_invoice}"))
    assert (real["status"], real["invoiceNumber"]) == ("100", None)


async def test_the_booked_invoice_is_paid_in_the_rehearsal_and_open_at_sevdesk(run: Run) -> None:
    ids = await run.month_end()
    rehearsed = one(await run.client.get(f"/Invoice/{ids.paid_invoice}"))
    real = one(await straight(run.fake).get(f"/Invoice/{ids.paid_invoice}"))
    assert rehearsed["status"] == "1000" and rehearsed["paidAmount"] == Decimal("763.98")
    assert real["status"] == "200" and real["paidAmount"] == 0
    tx = run.facts.matching_transaction_id
    rehearsed_tx = one(await run.client.get(f"/CheckAccountTransaction/{tx}"))
    real_tx = one(await straight(run.fake).get(f"/CheckAccountTransaction/{tx}"))
    assert (rehearsed_tx["status"], real_tx["status"]) == ("400", "100")


async def test_created_records_live_in_the_overlay_only(run: Run) -> None:
    ids = await run.month_end()
    assert ids.voucher >= CREATED_ID_BASE and ids.reminder >= CREATED_ID_BASE
    voucher = one(await run.client.get(f"/Voucher/{ids.voucher}"))
    assert (voucher["status"], voucher["sumGross"]) == ("100", "89.99")
    assert run.fake.store.vouchers.find(ids.voucher) is None
    positions = many(
        await run.client.get(
            "/VoucherPos", {"voucher[id]": ids.voucher, "voucher[objectName]": "Voucher"}
        )
    )
    assert [p["sumNet"] for p in positions] == ["75.62"]


async def test_the_same_script_against_a_copy_gives_the_same_figures(run: Run) -> None:
    ids = await run.month_end()
    predicted = await figures(run.client, ids)
    copy, copy_facts = build_demo_with_facts()
    copy_client = straight(copy)
    copy_ids = await month_end(copy_client, copy_facts, copy)
    actual = await figures(copy_client, copy_ids)
    assert predicted == actual
    assert predicted["paid"][0] == "1000" and predicted["finalized"][1] == f"RE-{run.real_next}"
    assert (f"RE-{run.real_next}", "6052.34") in predicted["open_items"]
    assert copy.store.revision > 0 and any(r.applied for r in copy.requests)


async def test_the_open_items_drop_the_paid_invoice(run: Run) -> None:
    before_ids = ids_of(await run.client.get("/Invoice", {"status": 200, "limit": 1000}))
    ids = await run.month_end()
    after_ids = ids_of(await run.client.get("/Invoice", {"status": 200, "limit": 1000}))
    assert ids.paid_invoice in before_ids and ids.paid_invoice not in after_ids
    assert ids.finalized_invoice not in before_ids and ids.finalized_invoice in after_ids
    real = await straight(run.fake).get("/Invoice", {"status": 200, "limit": 1000})
    assert ids_of(real) == before_ids

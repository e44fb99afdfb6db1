"""Invoices, credit notes and orders: filters, positions, getPdf (Q3, Q21) and sendBy (Q22)."""

from __future__ import annotations

import base64
from datetime import datetime
from decimal import Decimal

import pytest

from sevdesk_mcp.fake import DemoFacts, FakeSevdesk
from sevdesk_mcp.fake.wire import BERLIN
from tests.fake.helpers import api, assert_error, objects

pytestmark = pytest.mark.anyio


def unix(day: str) -> int:
    return int(datetime.fromisoformat(day).replace(tzinfo=BERLIN).timestamp())


async def test_invoice_filters(demo: FakeSevdesk, facts: DemoFacts) -> None:
    async with api(demo) as client:
        opened = await objects(client, "/Invoice", limit=1000, status=200)
        numbered = await objects(client, "/Invoice", invoiceNumber="RE-1001")
        cancellations = await objects(client, "/Invoice", invoiceType="SR")
        bad_status = await objects(client, "/Invoice", status="open")
        eu = demo.store.invoices.get(facts.eu_invoice_id)
        assert eu.contact is not None
        by_contact = await objects(client, "/Invoice", **{"contact[id]": eu.contact.id})
    assert {i["id"] for i in opened} == {str(i) for i in facts.invoice_ids_by_status[200]}
    assert [i["invoiceNumber"] for i in numbered] == ["RE-1001"]
    assert [i["id"] for i in cancellations] == [str(facts.cancellation_invoice_id)]
    assert bad_status == []
    assert {i["id"] for i in by_contact} == {str(facts.eu_invoice_id)}


async def test_date_filters_take_unix_seconds_and_iso_gives_an_empty_list(
    demo: FakeSevdesk,
) -> None:
    """Q19."""
    start, end = unix("2026-03-01"), unix("2026-03-31")
    async with api(demo) as client:
        march = await objects(client, "/Invoice", startDate=start, endDate=end)
        iso = await objects(client, "/Invoice", startDate="2026-03-01", endDate="2026-03-31")
        iso_start = await objects(client, "/Invoice", startDate="2026-03-01")
    expected = [i for i in demo.store.invoices if i.invoiceDate.month == 3]
    assert [i["id"] for i in march] == [str(i.id) for i in expected]
    assert iso == iso_start == []


async def test_customer_internal_note_is_exact(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        exact = await objects(client, "/Invoice", customerInternalNote="Aus Angebot AN-1001")
        partial = await objects(client, "/Invoice", customerInternalNote="Aus Angebot")
    assert len(exact) == 1 and exact[0]["origin"]["objectName"] == "Order"
    assert partial == []


async def test_positions_add_up_to_the_invoice(demo: FakeSevdesk, facts: DemoFacts) -> None:
    ident = facts.invoice_ids_by_status[1000][3]
    async with api(demo) as client:
        (invoice,) = await objects(client, f"/Invoice/{ident}")
        positions = await objects(client, f"/Invoice/{ident}/getPositions")
        listed = await objects(
            client, "/InvoicePos", **{"invoice[id]": ident, "invoice[objectName]": "Invoice"}
        )
        assert_error(await client.get("/Invoice/1/getPositions"), 404, code=151)
    assert positions == listed and positions
    for key in ("sumNet", "sumTax", "sumGross"):
        assert sum(Decimal(p[key]) for p in positions) == Decimal(invoice[key])
    assert all(p["invoice"] == {"id": str(ident), "objectName": "Invoice"} for p in positions)


async def test_position_filter_by_part(demo: FakeSevdesk) -> None:
    part = next(iter(demo.store.parts))
    async with api(demo) as client:
        positions = await objects(client, "/InvoicePos", limit=1000, **{"part[id]": part.id})
    assert positions and all(p["part"]["id"] == str(part.id) for p in positions)


async def test_get_pdf_with_prevent_send_by_leaves_a_draft_alone(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    """Q3 shape; a draft's filename is ``.pdf``."""
    draft = facts.invoice_ids_by_status[100][0]
    async with api(demo) as client:
        for flag in ("true", "1"):
            pdf = await objects(client, f"/Invoice/{draft}/getPdf", preventSendBy=flag)
            assert pdf["filename"] == ".pdf"
        (invoice,) = await objects(client, f"/Invoice/{draft}")
    assert set(pdf) == {"filename", "mimetype", "base64Encoded", "content"}
    assert pdf["mimetype"] == "application/pdf" and pdf["base64Encoded"] is True
    assert base64.b64decode(pdf["content"]).startswith(b"%PDF-1.4")
    assert (invoice["status"], invoice["invoiceNumber"], invoice["enshrined"]) == (
        "100",
        None,
        None,
    )
    assert not any(r.applied for r in demo.requests)


async def test_get_pdf_without_prevent_send_by_sends_the_draft(
    demo: FakeSevdesk, facts: DemoFacts
) -> None:
    """Q21: rendering a draft without ``preventSendBy`` enshrines it and assigns a number."""
    draft = facts.invoice_ids_by_status[100][0]
    next_number = f"RE-{demo.store.sequences['RE-']}"
    async with api(demo) as client:
        pdf = await objects(client, f"/Invoice/{draft}/getPdf")
        (invoice,) = await objects(client, f"/Invoice/{draft}")
        again = await objects(client, f"/Invoice/{draft}/getPdf")
    assert pdf["filename"] == f"{next_number}.pdf" == again["filename"]
    assert invoice["status"] == "200" and invoice["invoiceNumber"] == next_number
    assert invoice["enshrined"] and invoice["sendDate"] and invoice["sendType"] == "VPDF"
    assert [r.applied for r in demo.requests] == [True, False, False]


async def test_send_by_finalises_a_draft(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """Q22: the number comes with sendBy, together with ``enshrined`` and ``sendDate``."""
    first, second = facts.invoice_ids_by_status[100][:2]
    number = demo.store.sequences["RE-"]
    async with api(demo) as client:
        one = await client.put(
            f"/Invoice/{first}/sendBy", json={"sendType": "VPDF", "sendDraft": False}
        )
        two = await client.put(
            f"/Invoice/{second}/sendBy", json={"sendType": "VM", "sendDraft": "0"}
        )
        resend = await client.put(
            f"/Invoice/{first}/sendBy", json={"sendType": "VP", "sendDraft": False}
        )
    sent = one.json()["objects"]
    assert isinstance(sent, dict)
    assert (sent["status"], sent["invoiceNumber"]) == ("200", f"RE-{number}")
    assert sent["enshrined"] and sent["sendDate"]
    assert two.json()["objects"]["invoiceNumber"] == f"RE-{number + 1}"
    assert resend.json()["objects"]["invoiceNumber"] == f"RE-{number}"
    assert resend.json()["objects"]["sendType"] == "VP"


async def test_send_draft_true_changes_nothing(demo: FakeSevdesk, facts: DemoFacts) -> None:
    draft = facts.invoice_ids_by_status[100][0]
    async with api(demo) as client:
        response = await client.put(
            f"/Invoice/{draft}/sendBy", json={"sendType": "VPDF", "sendDraft": True}
        )
    assert response.json()["objects"]["status"] == "100"
    assert demo.requests[-1].applied is False


@pytest.mark.parametrize(
    "body", [{"sendDraft": False}, {"sendType": "EMAIL", "sendDraft": False}, {"sendType": "VM"}]
)
async def test_send_by_validates(
    demo: FakeSevdesk, facts: DemoFacts, body: dict[str, object]
) -> None:
    draft = facts.invoice_ids_by_status[100][0]
    async with api(demo) as client:
        assert_error(await client.put(f"/Invoice/{draft}/sendBy", json=body), 400)


async def test_change_status_was_removed(demo: FakeSevdesk, facts: DemoFacts) -> None:
    """TECH 2024_04_04: PUT changeStatus is gone."""
    ident = facts.invoice_ids_by_status[200][0]
    credit_note = next(iter(demo.store.credit_notes)).id
    async with api(demo) as client:
        response = await client.put(f"/Invoice/{ident}/changeStatus", json={"value": 1000})
        assert_error(response, 404)
        response = await client.put(f"/CreditNote/{credit_note}/changeStatus", json={"value": 1000})
        assert_error(response, 404)
    assert demo.store.invoices.get(ident).status == 200


async def test_cancellation_invoice(demo: FakeSevdesk, facts: DemoFacts) -> None:
    async with api(demo) as client:
        (cancellation,) = await objects(client, f"/Invoice/{facts.cancellation_invoice_id}")
        (original,) = await objects(client, f"/Invoice/{facts.cancelled_invoice_id}")
    assert cancellation["invoiceType"] == "SR" and cancellation["status"] == "1000"
    assert cancellation["origin"] == {"id": original["id"], "objectName": "Invoice"}
    assert Decimal(cancellation["sumGross"]) == -Decimal(original["sumGross"])
    assert original["invoiceNumber"] in cancellation["header"]


async def test_credit_notes(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        notes = await objects(client, "/CreditNote")
        autumn = await objects(client, "/CreditNote", startDate=unix("2026-09-01"))
        spring = await objects(client, "/CreditNote", endDate=unix("2026-06-01"))
        (one,) = await objects(client, f"/CreditNote/{notes[0]['id']}")
        numbered = await objects(client, "/CreditNote", creditNoteNumber="GU-1002")
        positions = await objects(client, "/CreditNotePos", **{"creditNote[id]": one["id"]})
    assert {n["status"] for n in notes} == {"100", "200", "1000"}
    assert [n["creditNoteNumber"] for n in autumn] == ["GU-1002", "GU-1003"]
    assert [n["creditNoteNumber"] for n in spring] == ["GU-1001"]
    assert all(n["creditNoteNumber"] for n in notes)  # drafts carry their number (Q35)
    assert one["refSrcInvoice"]["objectName"] == "Invoice"
    assert [n["creditNoteNumber"] for n in numbered] == ["GU-1002"]
    assert sum(Decimal(p["sumGross"]) for p in positions) == Decimal(one["sumGross"])


async def test_orders_and_optional_positions(demo: FakeSevdesk) -> None:
    async with api(demo) as client:
        orders = await objects(client, "/Order")
        offers = await objects(client, "/Order", orderType="AN", status=500)
        november = await objects(client, "/Order", startDate=unix("2026-11-01"))
        sent = next(o for o in orders if o["status"] == "200")
        positions = await objects(client, "/OrderPos", **{"order[id]": sent["id"]})
        same = await objects(client, f"/Order/{sent['id']}/getPositions")
    assert {o["status"] for o in orders} == {"100", "200", "300", "500", "1000"}
    assert [o["orderNumber"] for o in offers] == ["AN-1003"]
    assert [o["orderNumber"] for o in november] == ["AN-1004", "AN-1005"]
    assert positions == same
    assert positions[-1]["optional"] == "1"
    counted = [p for p in positions if p["optional"] == "0"]
    assert sum(Decimal(p["sumNet"]) for p in counted) == Decimal(sent["sumNet"])


async def test_order_pdf_without_prevent_send_by_moves_a_draft_to_200(demo: FakeSevdesk) -> None:
    """Q21, measured on orders: 100 → 200 after orderGetPdf."""
    draft = next(o for o in demo.store.orders if o.status == 100)
    async with api(demo) as client:
        kept = await objects(client, f"/Order/{draft.id}/getPdf", preventSendBy="true")
        assert kept["filename"] == f"{draft.orderNumber}.pdf"
        assert draft.status == 100
        await objects(client, f"/Order/{draft.id}/getPdf")
    assert draft.status == 200 and draft.orderNumber == "AN-1005"


async def test_credit_note_send_by(demo: FakeSevdesk) -> None:
    draft = next(n for n in demo.store.credit_notes if n.status == 100)
    async with api(demo) as client:
        response = await client.put(
            f"/CreditNote/{draft.id}/sendBy", json={"sendType": "VPR", "sendDraft": False}
        )
    note = response.json()["objects"]
    assert note["status"] == "200" and note["creditNoteNumber"] == "GU-1003"
    assert note["enshrined"]

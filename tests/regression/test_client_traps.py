"""One regression test per sevDesk trap the client handles, against the fake sevDesk."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from sevdesk_mcp.config import load_config
from sevdesk_mcp.errors import (
    AuthenticationError,
    OutcomeUnknownError,
    UpstreamValidationError,
)
from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk, build_demo, serve_fake
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk import dates, wire
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.envelope import many, one
from sevdesk_mcp.sevdesk.gate import WriteGate
from tests.demo_account import DEMO_URL, fake_client

pytestmark = pytest.mark.anyio
WRITE = load_config({"SEVDESK_ALLOW": "write,commit"})
TOKEN = "fedcba9876543210fedcba9876543210"


async def _raw(fake: FakeSevdesk, path: str, **params: str) -> httpx.Response:
    async with httpx.AsyncClient(
        transport=fake.transport(), base_url=DEMO_URL, headers={"Authorization": DEMO_TOKEN}
    ) as raw:
        return await raw.get(path, params=params)


async def _add_contacts(fake: FakeSevdesk, count: int) -> None:
    writer = fake_client(fake, WRITE)
    for i in range(count):
        await writer.send(
            "POST",
            "/Contact",
            tier=Tier.WRITE,
            json={
                "name": f"Bulk {i:04d} GmbH",
                "status": 1000,
                "category": {"id": 3, "objectName": "Category"},
            },
        )


async def test_the_silent_100_row_default_never_truncates_a_result() -> None:
    fake = FakeSevdesk(token=DEMO_TOKEN)
    await _add_contacts(fake, 250)
    silent = many((await _raw(fake, "/Contact")).json()["objects"])
    assert len(silent) == 100  # the trap: no limit, silently 100 rows
    before = len(fake.requests)
    page = await fake_client(fake).get_all("/Contact", max_items=10_000)
    assert len(page.items) == 250 and not page.truncated
    assert all("limit" in r.query for r in fake.requests[before:])


async def test_get_pdf_never_marks_a_draft_as_sent() -> None:
    fake = build_demo()
    drafts = many(await fake_client(fake).get("/Invoice", {"status": 100}))
    draft_id = int(str(drafts[0]["id"]))
    await fake_client(fake).get(f"/Invoice/{draft_id}/getPdf")
    after = one(await fake_client(fake).get(f"/Invoice/{draft_id}"))
    assert str(after["status"]) == "100" and after["invoiceNumber"] is None
    await _raw(fake, f"/Invoice/{draft_id}/getPdf")  # what a client without the rule does
    trapped = one(await fake_client(fake).get(f"/Invoice/{draft_id}"))
    assert str(trapped["status"]) == "200"


async def test_scalars_arrive_as_strings_and_are_read_as_numbers() -> None:
    fake = build_demo()
    raw = many(await fake_client(fake).get("/Contact", {"limit": 1}))[0]
    assert isinstance(raw["id"], str) and isinstance(raw["status"], str)
    contact = wire.parse(raw, wire.Contact)
    assert isinstance(contact.id, int) and contact.status == 1000
    assert contact.category is not None and contact.category.id == 3


@pytest.mark.threat("S03")
async def test_a_failed_write_is_sent_exactly_once() -> None:
    fake = FakeSevdesk(token=DEMO_TOKEN)
    fake.faults.fail_next(503, times=3)
    with pytest.raises(OutcomeUnknownError, match="answered HTTP 503"):  # Q33: maybe applied
        await fake_client(fake, WRITE).send(
            "POST",
            "/Contact",
            tier=Tier.WRITE,
            json={"name": "Once GmbH", "category": {"id": 3, "objectName": "Category"}},
        )
    assert [r.method for r in fake.requests] == ["POST"]


@pytest.mark.threat("S08")
async def test_a_write_applied_before_a_timeout_is_reported_unknown_and_not_retried() -> None:
    fake = FakeSevdesk(token=DEMO_TOKEN)
    fake.faults.timeout_after_write_next()
    with pytest.raises(OutcomeUnknownError, match="Check the record"):
        await fake_client(fake, WRITE).send(
            "POST",
            "/Contact",
            tier=Tier.WRITE,
            json={"name": "Maybe GmbH", "category": {"id": 3, "objectName": "Category"}},
        )
    assert len(fake.requests) == 1 and fake.requests[0].applied
    names = [c["name"] for c in many(await fake_client(fake).get("/Contact"))]
    assert names.count("Maybe GmbH") == 1


@pytest.mark.threat("S03")
async def test_reads_survive_a_reset_and_a_503() -> None:
    fake = build_demo()
    fake.faults.reset_next()
    fake.faults.fail_next(503)
    assert await fake_client(fake).system_version() == "2.0"
    assert len(fake.requests) >= 2


@pytest.mark.threat("S04")
async def test_reads_honour_a_short_retry_after() -> None:
    fake = build_demo()
    fake.faults.fail_next(429, retry_after="0")
    assert await fake_client(fake).system_version() == "2.0"


async def test_validation_errors_sent_as_500_are_reported_as_validation() -> None:
    fake = FakeSevdesk(token=DEMO_TOKEN)
    fake.faults.validation_as_500 = True
    with pytest.raises(UpstreamValidationError, match="HTTP 500"):
        await fake_client(fake, WRITE).send(
            "POST", "/Contact", tier=Tier.WRITE, json={"name": "No category"}
        )
    assert len(fake.requests) == 1


async def test_list_date_filters_go_out_as_berlin_unix_seconds() -> None:
    fake = build_demo()
    iso = (await _raw(fake, "/Invoice", startDate="2026-01-01", limit="1000")).json()["objects"]
    assert iso == []  # the trap: ISO dates are silently answered with an empty list
    start = dates.unix_start(dt.date(2026, 1, 1))
    end = dates.unix_end(dt.date(2026, 12, 31))
    found = await fake_client(fake).get_all(
        "/Invoice", {"startDate": start, "endDate": end}, max_items=1000
    )
    assert found.items


@pytest.mark.threat("S05")
async def test_a_refused_token_is_final_and_explains_the_fix() -> None:
    fake = FakeSevdesk(token=TOKEN)
    client = fake_client(fake, token="0" * 32)
    with pytest.raises(AuthenticationError, match="without 'Bearer'"):
        await client.system_version()
    assert len(fake.requests) == 1


async def test_the_client_works_against_the_fake_served_on_loopback() -> None:
    fake = build_demo()
    with serve_fake(fake) as base_url:
        client = SevdeskClient(
            base_url=base_url,
            token=Secret(DEMO_TOKEN),
            gate=WriteGate(tiers=frozenset({Tier.READ})),
        )
        try:
            assert base_url.startswith("http://127.0.0.1:")
            assert await client.system_version() == "2.0"
            page = await client.get_all("/Contact", {"depth": 1}, max_items=1000)
        finally:
            await client.aclose()
    assert len(page.items) > 10

"""Switchable faults on the httpx transport: latency, error answers, resets, timeouts, Q32."""

from __future__ import annotations

import time

import httpx
import pytest

from sevdesk_mcp.fake import FakeSevdesk, Faults
from sevdesk_mcp.fake.router import Context, Reply, Router
from sevdesk_mcp.fake.wire import error_in_http_200
from tests.fake.helpers import api, assert_error, objects

pytestmark = pytest.mark.anyio

NEW_CONTACT = {"name": "Neu GmbH", "category": {"id": 3, "objectName": "Category"}}


async def test_latency_delays_every_request(fake: FakeSevdesk) -> None:
    fake.faults.latency_s = 0.05
    async with api(fake) as client:
        started = time.monotonic()
        await client.get("/Tools/bookkeepingSystemVersion")
        await client.get("/Tools/bookkeepingSystemVersion")
    assert time.monotonic() - started >= 0.1


async def test_fail_next_answers_the_status_n_times_in_order(fake: FakeSevdesk) -> None:
    fake.faults.fail_next(503, times=2)
    fake.faults.fail_next(429, retry_after="7")
    async with api(fake) as client:
        first = await client.post("/Contact", json=NEW_CONTACT)
        second = await client.get("/Contact")
        limited = await client.get("/Contact")
        fine = await client.get("/Contact")
    assert assert_error(first, 503)["responseCode"] == 503
    assert_error(second, 503)
    assert assert_error(limited, 429)["message"] == "Too Many Requests"
    assert limited.headers["retry-after"] == "7"
    assert "retry-after" not in second.headers
    assert fine.status_code == 200
    assert len(fake.store.contacts) == 0
    assert [r.applied for r in fake.requests] == [False] * 4


def test_fail_next_rejects_non_error_statuses_and_counts() -> None:
    faults = Faults()
    with pytest.raises(ValueError, match=r"400\.\.599"):
        faults.fail_next(200)
    with pytest.raises(ValueError, match="at least 1"):
        faults.fail_next(500, times=0)
    with pytest.raises(ValueError, match="at least 1"):
        faults.reset_next(times=0)
    with pytest.raises(ValueError, match="at least 1"):
        faults.timeout_after_write_next(times=-1)


async def test_an_unusual_status_still_gets_the_error_body(fake: FakeSevdesk) -> None:
    fake.faults.fail_next(599)
    async with api(fake) as client:
        assert assert_error(await client.get("/Contact"), 599)["message"] == "Error"


async def test_reset_next_drops_the_request_before_anything_is_applied(fake: FakeSevdesk) -> None:
    fake.faults.reset_next(times=2)
    async with api(fake) as client:
        with pytest.raises(httpx.ReadError):
            await client.post("/Contact", json=NEW_CONTACT)
        with pytest.raises(httpx.ReadError):
            await client.get("/Contact")
        assert await objects(client, "/Contact") == []
    assert [r.applied for r in fake.requests] == [False, False, False]


async def test_timeout_after_write_applies_then_times_out(fake: FakeSevdesk) -> None:
    """Q33: an error is not proof that nothing was written."""
    fake.faults.timeout_after_write_next()
    async with api(fake) as client:
        await objects(client, "/Contact")  # a read does not consume the fault
        refused = await client.post("/Contact", json={"name": "no category"})
        with pytest.raises(httpx.ReadTimeout):
            await client.post("/Contact", json=NEW_CONTACT)
        listed = await objects(client, "/Contact")
        await client.post("/Contact", json=NEW_CONTACT)
    assert refused.status_code == 400
    assert [c["name"] for c in listed] == ["Neu GmbH"]
    assert [r.applied for r in fake.requests] == [False, False, True, False, True]


async def test_validation_errors_as_500(fake: FakeSevdesk) -> None:
    """Q32: a validation error may come as HTTP 500; the body stays the same."""
    fake.faults.validation_as_500 = True
    async with api(fake) as client:
        response = await client.post("/Contact", json={"name": "no category"})
        unprocessable = await client.post(
            "/Contact", json={"name": "X", "category": {"id": 47, "objectName": "Category"}}
        )
        missing = await client.get("/Contact/1")
    assert assert_error(response, 500)["responseCode"] == 400
    assert assert_error(unprocessable, 500)["responseCode"] == 422
    assert_error(missing, 404, code=151)


async def test_reset_clears_everything(fake: FakeSevdesk) -> None:
    faults = fake.faults
    faults.latency_s = 5.0
    faults.validation_as_500 = True
    faults.timeout_hold_s = 9.0
    faults.fail_next(500)
    faults.reset_next()
    faults.timeout_after_write_next()
    faults.reset()
    async with api(fake) as client:
        created = await client.post("/Contact", json=NEW_CONTACT)
        refused = await client.post("/Contact", json={"name": "no category"})
    assert created.status_code == 201 and refused.status_code == 400
    assert (faults.latency_s, faults.timeout_hold_s) == (0.0, 0.5)


async def test_an_unexpected_failure_is_a_500(
    fake: FakeSevdesk, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    broken = Router()

    @broken.route("GET", "/Broken")
    def fail(ctx: Context) -> Reply:
        raise RuntimeError("bug")

    monkeypatch.setattr("sevdesk_mcp.fake.core.ROUTER", broken)
    async with api(fake) as client:
        response = await client.get("/Broken")
    assert assert_error(response, 500)["message"] == "Internal Server Error"
    assert "the fake sevDesk failed on GET /Broken" in caplog.text


async def test_documented_errors_come_inside_http_200(
    fake: FakeSevdesk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """§1 Errors: e.g. cancelInvoice on a partly paid invoice answers HTTP 200, code 390."""
    routes = Router()

    @routes.route("POST", "/Invoice/{id}/cancelInvoice")
    def cancel(ctx: Context) -> Reply:
        raise error_in_http_200("Invoice is partially paid", 390)

    monkeypatch.setattr("sevdesk_mcp.fake.core.ROUTER", routes)
    fake.faults.validation_as_500 = True
    async with api(fake) as client:
        response = await client.post("/Invoice/1/cancelInvoice")
    error = assert_error(response, 200, code=390)
    assert error["responseCode"] == 200


async def test_the_request_log_keeps_the_newest(
    fake: FakeSevdesk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sevdesk_mcp.fake.core.MAX_RECORDED_REQUESTS", 3)
    async with api(fake) as client:
        for limit in range(1, 6):
            await client.get("/Contact", params={"limit": limit})
    assert [r.query["limit"] for r in fake.requests] == ["3", "4", "5"]


def test_the_token_must_not_be_empty() -> None:
    with pytest.raises(ValueError, match="non-empty token"):
        FakeSevdesk(token="")


def test_today_is_settable(fake: FakeSevdesk) -> None:
    from datetime import date

    fake.today = date(2027, 1, 4)
    assert fake.today == fake.store.today == date(2027, 1, 4)
    assert fake.store.now().isoformat().startswith("2027-01-04T09:00:01+01:00")

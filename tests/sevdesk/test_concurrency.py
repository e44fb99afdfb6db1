"""Concurrent reads inside the pacing budget, concurrent pages, the reference cache, and a
witness that does not depend on the order answers arrive in. Requests are counted at the fake;
nothing here measures time (a small latency only lets concurrent requests overlap)."""

from __future__ import annotations

import datetime as dt

import anyio
import httpx
import pytest

from sevdesk_mcp.domain import reference, reports
from sevdesk_mcp.domain.contacts import read as contacts
from sevdesk_mcp.domain.documents import detail as document_detail
from sevdesk_mcp.errors import AuthenticationError
from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.transport import FakeTransport
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk.cache import ReferenceCache, is_reference
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.observe import observed
from sevdesk_mcp.sevdesk.pacing import Pacer
from sevdesk_mcp.sevdesk.witness import Witness
from tests.demo_account import DEMO_URL, FAST
from tests.finance.helpers import seed_open_invoices

pytestmark = pytest.mark.anyio
READ = WriteGate(tiers=frozenset({Tier.READ}), read_only=True)
TODAY = dt.date(2026, 11, 27)


def _client(
    fake: FakeSevdesk,
    transport: httpx.AsyncBaseTransport,
    *,
    cap: int = 8,
    cache: ReferenceCache | None = None,
) -> SevdeskClient:
    return SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(fake.token),
        gate=READ,
        pacer=Pacer(rate_per_s=10_000, burst=10_000, max_in_flight=cap),
        limits=FAST,
        transport=transport,
        reference=cache,
    )


async def _search_contacts(client: SevdeskClient) -> None:
    await contacts.search_contacts(client, DEMO_URL, query=None, category="any", limit=5)


def _overlapping(fake: FakeSevdesk) -> FakeTransport:
    fake.faults.latency_s = 0.005  # lets concurrent requests overlap at the fake
    return FakeTransport(fake)


async def test_concurrency_never_exceeds_the_pacers_in_flight_cap() -> None:
    fake = build_demo()
    transport = _overlapping(fake)
    client = _client(fake, transport, cap=3)
    await reports.cash_position(client, TODAY)
    assert 2 <= transport.max_in_flight <= 3


async def test_the_pacer_is_shared_by_views_tools_and_concurrent_calls() -> None:
    fake = build_demo()
    transport = _overlapping(fake)
    client = _client(fake, transport, cap=2)
    reader = client.view(gate=READ, stamp=None, witness=Witness())
    assert reader.pacer is client.pacer
    async with anyio.create_task_group() as group:
        group.start_soon(reports.open_items, client, TODAY, 5)
        group.start_soon(reports.changed_since, reader, dt.datetime(2026, 1, 1, tzinfo=dt.UTC), 5)
        group.start_soon(_search_contacts, client)
    assert transport.max_in_flight == 2


async def test_pages_after_the_total_go_out_in_offset_order_and_report_progress() -> None:
    fake = FakeSevdesk("0123456789abcdef0123456789abcdef")
    seed_open_invoices(fake, 2_500)
    told: list[tuple[str, int, int | None]] = []

    class Watch:
        async def answered(self, method: str, path: str) -> None:
            pass

        async def listed(self, path: str, read: int, total: int | None) -> None:
            told.append((path, read, total))

    client = _client(fake, fake.transport())  # no latency: the fake records on arrival
    with observed(Watch()):
        page = await client.get_all("/Invoice", max_items=20_000)
    assert len(page.items) == 2_500 and not page.truncated
    assert [int(r.query["offset"]) for r in fake.requests] == [0, 1000, 2000]
    assert fake.requests[0].query["countAll"] == "true"
    assert told[0] == ("/Invoice", 1000, 2500) and all(t[2] == 2500 for t in told)
    assert len({r["id"] for r in page.items}) == 2_500


async def test_truncation_and_max_items_hold_with_a_total() -> None:
    fake = FakeSevdesk("0123456789abcdef0123456789abcdef")
    seed_open_invoices(fake, 2_500)
    page = await _client(fake, fake.transport()).get_all("/Invoice", max_items=1_500)
    assert len(page.items) == 1_500 and page.truncated
    assert [(r.query["limit"], r.query["offset"]) for r in fake.requests] == [
        ("1000", "0"),
        ("501", "1000"),
    ]


async def test_a_cached_reference_list_is_read_once_within_its_lifetime_then_again() -> None:
    fake = build_demo()
    now = [0.0]
    client = _client(fake, fake.transport(), cache=ReferenceCache(60.0, clock=lambda: now[0]))
    reader = client.view(gate=READ, stamp=None)  # views share the cache

    def reads() -> int:
        return len([r for r in fake.requests if r.path == "/TaxRule"])

    await reference.reference_data(client, "tax_rules", query=None, limit=5)
    await reference.reference_data(reader, "tax_rules", query="VORST", limit=5)
    now[0] = 59.0
    await reference.reference_data(client, "tax_rules", query=None, limit=5)
    assert reads() == 1
    now[0] = 60.0
    await reference.reference_data(client, "tax_rules", query=None, limit=5)
    assert reads() == 2


async def test_concurrent_readers_of_a_missing_reference_share_one_request() -> None:
    fake = build_demo()
    client = _client(fake, _overlapping(fake))
    async with anyio.create_task_group() as group:
        for _ in range(3):
            group.start_soon(client.system_version)
    assert len([r for r in fake.requests if r.path == "/Tools/bookkeepingSystemVersion"]) == 1


async def test_business_records_are_never_cached() -> None:
    fake = build_demo()
    client = _client(fake, fake.transport())
    for _ in range(2):
        await _search_contacts(client)
        await reports.cash_position(client, TODAY)
    paths = [r.path for r in fake.requests]
    for path in ("/Contact", "/Invoice", "/Voucher", "/CheckAccount", "/CheckAccountTransaction"):
        assert not is_reference(path)
    assert paths.count("/Contact") == 2 and paths.count("/CheckAccount") == 2
    assert paths.count("/Invoice") == paths.count("/Voucher") == 4
    for path in ("/TaxRule", "/AccountDatev/5", "/Unity", "/StaticCountry", "/PaymentMethod"):
        assert is_reference(path)


class _Shuffled(httpx.AsyncBaseTransport):
    """Answers each request after a delay drawn from a fixed order, so concurrent answers
    arrive in an order of the test's choosing."""

    def __init__(self, fake: FakeSevdesk, reverse: bool) -> None:
        self._inner = fake.transport()
        self._reverse = reverse
        self._seen = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._seen += 1
        step = self._seen if self._reverse else 20 - self._seen
        await anyio.sleep(max(step, 0) * 0.002)
        return await self._inner.handle_async_request(request)


@pytest.mark.parametrize("kind", ["invoice", "order"])
async def test_the_witness_is_the_same_whatever_order_answers_arrive_in(kind: str) -> None:
    records: list[dict[str, str]] = []
    for reverse in (False, True):
        fake = build_demo()
        seed_open_invoices(fake, 2_100)  # three pages of invoices for the order's relations
        doc = next(d for d in (fake.store.invoices if kind == "invoice" else fake.store.orders))
        witness = Witness()
        view = _client(fake, _Shuffled(fake, reverse)).view(gate=READ, stamp=None, witness=witness)
        await document_detail.get_document(view, DEMO_URL, kind, doc.id, today=TODAY)  # type: ignore[arg-type]
        records.append(witness.records())
    assert records[0] == records[1] and len(records[0]) >= 4


class _FailOne(httpx.AsyncBaseTransport):
    """Refuses the token on one path; every other answer waits, and counts if it arrives."""

    def __init__(self, fake: FakeSevdesk, failing: str) -> None:
        self._inner = fake.transport()
        self._failing = failing
        self.answered: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith(self._failing):
            return httpx.Response(401, json={"objects": None, "error": {"message": "no"}})
        await anyio.sleep(60)  # a hang guard's length: only a cancelled sibling ends early
        self.answered.append(request.url.path)
        return await self._inner.handle_async_request(request)


async def test_a_failed_read_cancels_its_siblings_and_is_reported_once() -> None:
    fake = build_demo()
    transport = _FailOne(fake, "/CreditNote")
    with pytest.raises(AuthenticationError) as raised:
        await reports.open_items(_client(fake, transport), TODAY, 5)
    assert "API token" in str(raised.value)
    assert transport.answered == []


def test_the_burst_follows_the_rate_within_its_bounds() -> None:
    from sevdesk_mcp.sevdesk.pacing import pacer_for

    assert [pacer_for(rate)._burst for rate in (0.5, 4, 10, 1000)] == [1.0, 10.0, 25.0, 50.0]

"""Pages converted into their schema as they arrive (``parsed.py``): the same records as
converting the whole list afterwards, the same refusal for a record that does not fit, and only
for the list that asked. Requests are counted at the fake; nothing here measures time."""

from __future__ import annotations

import datetime as dt

import anyio
import httpx
import pytest

from sevdesk_mcp.domain import reports
from sevdesk_mcp.errors import MalformedResponseError
from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.fake.transport import FakeTransport
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier
from sevdesk_mcp.sevdesk import parsed, wire
from sevdesk_mcp.sevdesk.client import SevdeskClient
from sevdesk_mcp.sevdesk.gate import WriteGate
from sevdesk_mcp.sevdesk.pacing import Pacer
from sevdesk_mcp.sevdesk.page import Page
from sevdesk_mcp.sevdesk.wire_documents import Document
from tests.demo_account import DEMO_URL, FAST
from tests.finance.helpers import seed_contacts, seed_open_invoices
from tests.wire import HANG_GUARD_S

pytestmark = pytest.mark.anyio
READ = WriteGate(tiers=frozenset({Tier.READ}), read_only=True)
TODAY = dt.date(2026, 11, 27)


def _client(fake: FakeSevdesk, transport: httpx.AsyncBaseTransport | None = None) -> SevdeskClient:
    return SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(fake.token),
        gate=READ,
        pacer=Pacer(rate_per_s=10_000, burst=10_000, max_in_flight=8),
        limits=FAST,
        transport=transport or fake.transport(),
    )


def _many() -> FakeSevdesk:
    fake = FakeSevdesk("0123456789abcdef0123456789abcdef")
    seed_open_invoices(fake, 2_500)
    return fake


async def test_pages_converted_as_they_arrive_equal_the_whole_list_converted() -> None:
    fake = _many()
    with parsed.pages_as("/Invoice", Document):
        page = await _client(fake).get_all("/Invoice", max_items=20_000)
    assert page.parsed is not None and len(page.parsed.records) == 2_500
    assert parsed.records(page, Document) == wire.parse_all(page.items, Document)
    assert [int(r.query["offset"]) for r in fake.requests] == [0, 1000, 2000]


async def test_the_converted_records_are_cut_where_the_items_are() -> None:
    with parsed.pages_as("/Invoice", Document):
        page = await _client(_many()).get_all("/Invoice", max_items=1_500)
    assert page.truncated and page.parsed is not None
    assert [str(d.id) for d in parsed.records(page, Document)] == [r["id"] for r in page.items]


async def test_only_the_list_that_asked_is_converted() -> None:
    fake = _many()
    with parsed.pages_as("/CreditNote", Document):
        page = await _client(fake).get_all("/Invoice", max_items=20_000)
    assert page.parsed is None
    assert len(parsed.records(page, Document)) == 2_500  # converted by the reader instead
    page = await _client(fake).get_all("/Invoice", max_items=20_000)
    assert page.parsed is None


class _Garbled(httpx.AsyncBaseTransport):
    """Answers the second page of a list with one amount that is no number."""

    def __init__(self, fake: FakeSevdesk) -> None:
        self.inner = fake.transport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.url.params.get("offset") != "1000":
            return response
        body = (await response.aread()).replace(b'"sumGross":"', b'"sumGross":"lots', 1)
        return httpx.Response(response.status_code, headers=response.headers, content=body)


async def test_a_record_that_does_not_fit_is_refused_as_without_conversion() -> None:
    fake = _many()
    with parsed.pages_as("/Invoice", Document):
        page = await _client(fake, _Garbled(fake)).get_all("/Invoice", max_items=20_000)
    assert page.parsed is None
    with pytest.raises(MalformedResponseError) as converted:
        parsed.records(page, Document)
    with pytest.raises(MalformedResponseError) as whole:
        wire.parse_all(page.items, Document)
    assert str(converted.value) == str(whole.value)


async def test_records_of_another_kind_are_converted_again() -> None:
    page = Page([{"id": "7", "name": "A"}], truncated=False)
    assert parsed.records(page, wire.Contact) == [wire.Contact(id=7, name="A")]


class _HoldPages(httpx.AsyncBaseTransport):
    """Holds the invoice pages past the first until the contact list was asked for: a client
    that reads the contacts only after the documents never gets them."""

    def __init__(self, fake: FakeSevdesk) -> None:
        self.inner = fake.transport()
        self.contacts_asked = anyio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path, offset = request.url.path, request.url.params.get("offset", "0")
        if path.endswith("/Contact"):
            self.contacts_asked.set()
        elif path.endswith("/Invoice") and offset != "0":
            await self.contacts_asked.wait()
        return await self.inner.handle_async_request(request)


async def test_open_items_read_the_contacts_together_with_the_documents() -> None:
    fake = build_demo()  # open credit notes and receipts: a short list shows an open item
    seed_open_invoices(fake, 2_500)
    seed_contacts(fake, 1_500)
    with anyio.fail_after(HANG_GUARD_S):
        result = await reports.open_items(_client(fake, _HoldPages(fake)), TODAY, 5)
    assert result.receivables.items > 2_500
    contact_pages = [r for r in fake.requests if r.path == "/Contact"]
    assert [r.query["offset"] for r in contact_pages] == ["0", "1000"]


async def test_open_items_without_an_open_item_read_no_contacts() -> None:
    fake = FakeSevdesk("0123456789abcdef0123456789abcdef")
    result = await reports.open_items(_client(fake), TODAY, 5)
    assert result.receivables.items == 0 and result.payables.items == 0
    assert "/Contact" not in {r.path for r in fake.requests}


async def test_open_items_of_future_documents_only_read_no_contacts() -> None:
    fake = FakeSevdesk("0123456789abcdef0123456789abcdef")
    seed_open_invoices(fake, 3)
    result = await reports.open_items(_client(fake), dt.date(2000, 1, 1), 5)
    assert result.receivables.items == 0
    assert "/Contact" not in {r.path for r in fake.requests}


async def test_open_items_with_the_contacts_together_stay_within_the_in_flight_cap() -> None:
    fake = build_demo()
    seed_open_invoices(fake, 2_500)
    seed_contacts(fake, 1_500)
    fake.faults.latency_s = 0.005  # lets concurrent requests overlap at the fake
    transport = FakeTransport(fake)
    client = SevdeskClient(
        base_url=DEMO_URL,
        token=Secret(fake.token),
        gate=READ,
        pacer=Pacer(rate_per_s=10_000, burst=10_000, max_in_flight=3),
        limits=FAST,
        transport=transport,
    )
    await reports.open_items(client, TODAY, 5)
    assert 2 <= transport.max_in_flight <= 3
    paths = [r.path for r in fake.requests]
    assert paths.count("/Contact") == 2 and paths.count("/Invoice") == 4  # 200: 3 pages, 750: 1

"""A write naming a real record the overlay's engine cannot read (here a contact whose status
is a value the fake does not model) is refused with one line naming the record and why, not
with a bare 404; nothing reaches sevDesk and nothing is logged as a change."""

from __future__ import annotations

import httpx
import msgspec
import pytest

from sevdesk_mcp.errors import RehearsalRefusedError
from sevdesk_mcp.fake import build_demo_with_facts
from sevdesk_mcp.rehearsal.seed import UnreadableRecordError
from sevdesk_mcp.rehearsal.transport import Rehearsal
from sevdesk_mcp.safety.tiers import Tier
from tests.rehearsal.helpers import CountingProxy, client_on, one

pytestmark = pytest.mark.anyio


class OddStatus(httpx.AsyncBaseTransport):
    """The real account, answering contact ``ident`` with a status the fake cannot read."""

    def __init__(self, inner: httpx.AsyncBaseTransport, ident: int) -> None:
        self.inner = inner
        self.path = f"/Contact/{ident}"

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if not request.url.path.endswith(self.path):
            return response
        body = msgspec.json.decode(await response.aread())
        body["objects"][0]["status"] = "ARCHIVED_LEGALLY"
        return httpx.Response(response.status_code, json=body, request=request)


async def test_a_write_to_an_unreadable_record_is_refused_by_name() -> None:
    fake, facts = build_demo_with_facts()
    ident = facts.customer_ids[0]
    proxy = CountingProxy(OddStatus(fake.transport(), ident))
    rehearsal = Rehearsal(proxy, today=lambda: fake.today)
    client = client_on(rehearsal)
    assert one(await client.get(f"/Contact/{ident}"))["status"] == "ARCHIVED_LEGALLY"
    with pytest.raises(UnreadableRecordError) as refused:
        await client.send("PUT", f"/Contact/{ident}", tier=Tier.WRITE, json={"name": "X GmbH"})
    message = str(refused.value)
    assert f"Contact {ident}" in message and "status" in message and "\n" not in message
    assert message.startswith(f"Rehearsal cannot apply PUT /Contact/{ident}:")
    assert isinstance(refused.value, RehearsalRefusedError)
    assert rehearsal.changes() == () and set(proxy.methods) == {"GET"}
    assert rehearsal.upstream_refused() == 0 and fake.store.contacts.get(ident).name != "X GmbH"


async def test_a_readable_record_next_to_it_is_still_written() -> None:
    fake, facts = build_demo_with_facts()
    odd, other = facts.customer_ids[:2]
    client = client_on(Rehearsal(OddStatus(fake.transport(), odd), today=lambda: fake.today))
    await client.send("PUT", f"/Contact/{other}", tier=Tier.WRITE, json={"name": "Y GmbH"})
    assert one(await client.get(f"/Contact/{other}"))["name"] == "Y GmbH"
    assert fake.store.contacts.get(other).name != "Y GmbH"  # the real books are unchanged
    assert not any(r.applied for r in fake.requests)

"""The GET stream of a 2025-era session: resource updates of its subscriptions, replayed after
``Last-Event-ID`` (issue 17)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx
import msgspec
import pytest

from sevdesk_mcp.http.sessions import MemorySessionStore
from tests.http.conformance.server import LIMITS
from tests.http.helpers import HANG_GUARD_S
from tests.security.test_http_sessions import HEADERS, INITIALIZE, PING, _in, _session, serving

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _subscribe(uri: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": uri}}


async def _events(client: httpx.AsyncClient, session: str, **extra: str) -> list[str]:
    """:returns: the ``id`` lines of the stream's first event.

    The stream never ends by itself, so it is read over a plain socket and closed after the
    first event: httpx's streaming generators, left behind half-read, warn on trio.
    """
    headers = {**_in(session), **extra, "host": client.base_url.netloc.decode()}
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    port = client.base_url.port or 80
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(f"GET /mcp HTTP/1.1\r\n{head}\r\n".encode())
        received = b""
        with anyio.fail_after(HANG_GUARD_S):
            while b"\n\n" not in received.partition(b"\nid: ")[2]:  # the first whole event
                received += await stream.receive()
    status, _, rest = received.partition(b"\r\n")
    assert status.startswith(b"HTTP/1.1 200") and b"content-type: text/event-stream" in rest
    return [line for line in rest.decode().splitlines() if line.startswith("id: ")][:1]


@asynccontextmanager
async def _held_stream(client: httpx.AsyncClient, session: str) -> AsyncIterator[bytes]:
    """Open the session's GET stream over a plain socket and hold it; yields the status line."""
    headers = {**_in(session), "host": client.base_url.netloc.decode()}
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    async with await anyio.connect_tcp("127.0.0.1", client.base_url.port or 80) as stream:
        await stream.send(f"GET /mcp HTTP/1.1\r\n{head}\r\n".encode())
        received = b""
        with anyio.fail_after(HANG_GUARD_S):
            while b"\r\n\r\n" not in received:
                received += await stream.receive()
        yield received.partition(b"\r\n")[0]


async def test_open_get_streams_take_stream_places_not_places_of_requests_in_flight() -> None:
    """Issue 38: an open GET stream waits, it does not work; with one place in flight and one
    stream place, a held stream leaves the request place free, and a second stream is refused
    with 503 naming the streams."""
    limits = msgspec.structs.replace(LIMITS, max_inflight=1, max_streams=1)
    async with serving(MemorySessionStore(), "bearer", limits=limits) as client:
        first, second = await _session(client), await _session(client)
        async with _held_stream(client, first) as status:
            ping = await client.post("/mcp", json=PING, headers=_in(first))
            refused = await client.get("/mcp", headers=_in(second))
    assert status.startswith(b"HTTP/1.1 200")
    assert ping.status_code == 200 and ping.json()["result"] == {}
    assert refused.status_code == 503 and "event streams" in refused.text


async def test_updates_of_a_subscription_arrive_on_the_get_stream_and_resume() -> None:
    store = MemorySessionStore()
    async with serving(store, "bearer") as client:
        session = await _session(client)
        initialized = await client.post(
            "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=HEADERS
        )
        subscribed = await client.post(
            "/mcp", json=_subscribe("test://watched-resource"), headers=_in(session)
        )
        assert await store.resource_updated("test://watched-resource") == 1
        assert await store.resource_updated("test://watched-resource") == 1
        first = await _events(client, session)
        resumed = await _events(client, session, **{"last-event-id": "1"})
    assert initialized.status_code == 202 and subscribed.json()["result"] == {}
    assert first == ["id: 1"] and resumed == ["id: 2"]


ELICITING: dict[str, object] = {
    "jsonrpc": "2.0",
    "id": 5,
    "method": "tools/call",
    "params": {"name": "test_elicitation", "arguments": {}},
}


async def cancel_while_asking(
    holder: httpx.AsyncClient, other: httpx.AsyncClient
) -> tuple[list[str], int]:
    """Start a call that asks the client on ``holder``, cancel it through ``other``.

    :returns: the lines of the call's stream (which ends without an answer), and the status of
        the cancellation.
    """
    initialize = {
        **INITIALIZE,
        "params": {**INITIALIZE["params"], "capabilities": {"elicitation": {}}},
    }
    session = (await holder.post("/mcp", json=initialize, headers=HEADERS)).headers[
        "mcp-session-id"
    ]
    lines: list[str] = []
    with anyio.fail_after(HANG_GUARD_S):
        async with holder.stream("POST", "/mcp", json=ELICITING, headers=_in(session)) as stream:
            received = stream.aiter_lines()
            async for line in received:
                lines.append(line)
                if "elicitation/create" in line:
                    break
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 5, "reason": "changed my mind"},
            }
            cancelled = await other.post("/mcp", json=cancel, headers=_in(session))
            lines.extend([line async for line in received])
    return lines, cancelled.status_code


async def test_notifications_cancelled_ends_a_call_waiting_for_the_client() -> None:
    """Review finding (issue 25): the cancel scope of a running request was never entered, so
    ``notifications/cancelled`` (and the end of a session) did not stop it."""
    async with serving(MemorySessionStore(), "bearer") as client:
        lines, status = await cancel_while_asking(client, client)
    assert status == 202
    assert any("elicitation/create" in line for line in lines)  # the call was waiting
    assert not any('"id":5' in line for line in lines)  # and ended without any answer

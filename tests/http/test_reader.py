"""The one reader of a connection, on a scripted stream: feeding h11, back-pressure, the client
leaving, socket errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import anyio.abc
import h11
import pytest

from sevdesk_mcp.http.reader import CLIENT_GONE, Reader
from tests.http.helpers import HANG_GUARD_S

pytestmark = pytest.mark.anyio
REQUEST = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"


class Scripted(anyio.abc.ByteStream):
    """A byte stream whose incoming chunks the test pushes; counts the chunks taken."""

    def __init__(self) -> None:
        self.push, self._chunks = anyio.create_memory_object_stream[bytes | BaseException](16)
        self.taken = 0

    async def receive(self, max_bytes: int = 65536) -> bytes:
        chunk = await self._chunks.receive()  # EndOfStream once the test closes ``push``
        self.taken += 1
        if isinstance(chunk, BaseException):
            raise chunk
        return chunk

    async def send(self, item: bytes) -> None:
        raise NotImplementedError

    async def send_eof(self) -> None:
        raise NotImplementedError

    async def aclose(self) -> None:
        self._chunks.close()


@asynccontextmanager
async def reading(budget: int = 1024) -> AsyncIterator[tuple[Reader, Scripted, h11.Connection]]:
    stream, conn = Scripted(), h11.Connection(h11.SERVER)
    reader = Reader(stream, conn, budget)
    try:
        with anyio.fail_after(HANG_GUARD_S):
            async with anyio.create_task_group() as tg:
                tg.start_soon(reader.run)
                yield reader, stream, conn
                tg.cancel_scope.cancel()
    finally:
        stream.push.close()
        await stream.aclose()


async def test_what_arrives_goes_to_h11_and_wakes_the_waiting_loop() -> None:
    async with reading() as (reader, stream, conn):
        await stream.push.send(REQUEST)
        await reader.wait()
        assert isinstance(conn.next_event(), h11.Request)


async def test_past_the_budget_the_reader_stops_until_it_is_asked_again() -> None:
    async with reading(budget=10) as (reader, stream, conn):
        for _ in range(3):
            await stream.push.send(b"x" * 6)
        await anyio.wait_all_tasks_blocked()
        assert stream.taken == 2  # 12 bytes nobody asked for: the third chunk waits in TCP
        await reader.wait()
        assert stream.taken == 3 and len(conn.trailing_data[0]) == 18


async def test_the_client_leaving_calls_the_armed_callback_once() -> None:
    reasons: list[str] = []
    async with reading() as (reader, stream, conn):
        reader.arm(reasons.append)
        await stream.push.aclose()
        await reader.wait()
        assert reader.closed and conn.trailing_data == (b"", True)
        reader.arm(reasons.append)  # armed after the client left: called at once
        reader.disarm()
    assert reasons == [CLIENT_GONE, CLIENT_GONE]


async def test_a_disarmed_reader_calls_nothing() -> None:
    reasons: list[str] = []
    async with reading() as (reader, stream, _):
        reader.arm(reasons.append)
        reader.disarm()
        await stream.push.aclose()
        await reader.wait()
    assert reasons == []


async def test_a_socket_error_reaches_the_loop_when_it_asks_for_data() -> None:
    async with reading() as (reader, stream, conn):
        await stream.push.send(anyio.BrokenResourceError())
        with pytest.raises(anyio.BrokenResourceError):
            await reader.wait()
        assert reader.closed and conn.trailing_data == (b"", False)

"""A bytes-in, bytes-out harness around the real stdio server, on in-memory streams."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.dispatcher import Dispatcher
from sevdesk_mcp.mcp.stdio import StdioServer
from sevdesk_mcp.mcp.types import MODERN_VERSION

Frame = dict[str, Any]
HANG_GUARD_S = 60.0  # only ever a guard against a hang, never a timing assertion


def meta(caps: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """:returns: a 2026-07-28 ``_meta`` envelope."""
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": caps if caps is not None else {},
        **(extra or {}),
    }


FORM: dict[str, Any] = {"elicitation": {"form": {}}}


class Wire:
    """Writes raw lines to the server and reads its frames."""

    def __init__(
        self,
        server: StdioServer,
        inbox: MemoryObjectSendStream[bytes],
        outbox: MemoryObjectReceiveStream[bytes],
    ) -> None:
        self.server = server
        self._inbox = inbox
        self._outbox = outbox
        self._ids = 1000

    async def send_raw(self, data: bytes) -> None:
        await self._inbox.send(data)

    async def send(self, message: Frame) -> None:
        await self.send_raw(json.dumps(message).encode() + b"\n")

    async def recv(self, timeout: float = HANG_GUARD_S) -> Frame:
        with anyio.fail_after(timeout):
            frame = await self._outbox.receive()
        assert frame.endswith(b"\n") and frame.count(b"\n") == 1
        parsed: Frame = json.loads(frame)
        return parsed

    async def nothing_within(self, seconds: float) -> bool:
        with anyio.move_on_after(seconds):
            await self._outbox.receive()
            return False
        return True

    async def request(self, method: str, params: Frame | None = None, *, id: Any = None) -> Frame:
        """Send a request and return the answer with its id (skipping notifications)."""
        if id is None:
            self._ids += 1
            id = self._ids
        message: Frame = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        while True:
            frame = await self.recv()
            if frame.get("id") == id and "method" not in frame:
                return frame

    async def modern(
        self,
        method: str,
        params: Frame | None = None,
        caps: Frame | None = None,
        extra: Frame | None = None,
    ) -> Frame:
        return await self.request(method, {**(params or {}), "_meta": meta(caps, extra)})

    async def initialize(self, version: str = "2025-11-25", caps: Frame | None = None) -> Frame:
        params = {
            "protocolVersion": version,
            "capabilities": caps or {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        answer = await self.request("initialize", params)
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    async def close(self) -> None:
        await self._inbox.aclose()


@asynccontextmanager
async def open_wire(app: McpApp) -> AsyncIterator[Wire]:
    """Serve ``app`` over in-memory streams for the duration of the block."""
    inbox_send, inbox_recv = anyio.create_memory_object_stream[bytes](100)
    outbox_send, outbox_recv = anyio.create_memory_object_stream[bytes](100)

    async def read() -> bytes:
        try:
            return await inbox_recv.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return b""

    async def write(data: bytes) -> None:
        await outbox_send.send(data)

    server = StdioServer(Dispatcher(app), read, write)
    async with inbox_send, inbox_recv, outbox_send, outbox_recv, anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        wire = Wire(server, inbox_send, outbox_recv)
        try:
            yield wire
        finally:
            await wire.close()

"""Real servers on 127.0.0.1 with ephemeral ports, and raw-socket clients for them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
import h11
import httpx

from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.service.serve import HttpService, bind_service
from sevdesk_mcp.http.settings import HttpSettings
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.mcp.types import MODERN_VERSION
from sevdesk_mcp.safety.redact import Secret
from tests import wire
from tests.fixture_app import FixtureTools, fixture_app

HANG_GUARD_S = wire.HANG_GUARD_S  # the one guard against a hang, never a timing assertion
SECRET = "test-secret-0123456789-abcdefghijklmnopqrstuvwxyz"
PREVIOUS_SECRET = "previous-secret-0123456789-abcdefghijklmnopqrstu"
META: dict[str, Any] = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def fast(**overrides: Any) -> Limits:
    """:returns: the default limits, but lingering only briefly after the client goes quiet."""
    return Limits(**{"linger_idle_s": 0.05, **overrides})


@dataclass
class Running:
    """A running server and what the test can observe of it."""

    service: HttpService
    stop: anyio.Event
    log_lines: list[str]
    tools: FixtureTools
    built: list[McpApp] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.service.port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log_lines]


@asynccontextmanager
async def running(
    *,
    limits: Limits | None = None,
    settings: HttpSettings | None = None,
    build: Callable[[], McpApp] | None = None,
    tools: FixtureTools | None = None,
) -> AsyncIterator[Running]:
    """Serve the fixture app (a fresh one per request) until the block ends."""
    tools = tools or FixtureTools()
    lines: list[str] = []
    holder: list[McpApp] = []
    codec = RequestStateCodec()  # one key per process, as the server factory holds it

    def default_build() -> McpApp:
        app = fixture_app(tools=tools, codec=codec)
        holder.append(app)
        return app

    service = await bind_service(
        settings or HttpSettings(host="127.0.0.1", port=0),
        build or default_build,
        principal="bearer",
        limits=limits or fast(),
        access_log=AccessLog(sink=lines.append),
    )
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(service.run, stop)
        try:
            yield Running(service, stop, lines, tools, holder)
        finally:
            stop.set()


def bearer_settings(previous: bool = False) -> HttpSettings:
    secrets = (Secret(SECRET), Secret(PREVIOUS_SECRET)) if previous else (Secret(SECRET),)
    return HttpSettings(host="127.0.0.1", port=0, auth="bearer", secrets=secrets)


def modern_headers(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN_VERSION,
        "mcp-method": method,
    }
    if name is not None:
        headers["mcp-name"] = name
    return {**headers, **extra}


def modern_body(method: str, params: dict[str, Any] | None = None, id: Any = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": method,
        "params": {**(params or {}), "_meta": {**META, **(params or {}).get("_meta", {})}},
    }


@asynccontextmanager
async def http(server: Running, **kwargs: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        base_url=server.url, timeout=HANG_GUARD_S, trust_env=False, **kwargs
    ) as client:
        yield client


async def post_modern(
    client: httpx.AsyncClient,
    method: str,
    params: dict[str, Any] | None = None,
    /,
    **headers: str,
) -> httpx.Response:
    name = (params or {}).get("name") or (params or {}).get("uri")
    return await client.post(
        "/mcp", json=modern_body(method, params), headers=modern_headers(method, name, **headers)
    )


class RawClient:
    """Bytes in, h11 events out: for requests no well-behaved client library would send."""

    def __init__(self, stream: anyio.abc.SocketStream) -> None:
        self.stream = stream
        self.h11 = h11.Connection(h11.CLIENT)
        self.informational: list[int] = []

    async def send(self, data: bytes) -> None:
        await self.stream.send(data)

    async def response(self) -> tuple[h11.Response, bytes]:
        """:returns: the next complete response and its body."""
        if self.h11.our_state is h11.IDLE:  # h11 parses a response only after a request
            self.h11.send(h11.Request(method="GET", target="/", headers=[("host", "x")]))
            self.h11.send(h11.EndOfMessage())
        head: h11.Response | None = None
        body = b""
        with anyio.fail_after(HANG_GUARD_S):
            while True:
                event = self.h11.next_event()
                if event is h11.NEED_DATA:
                    self.h11.receive_data(await self._receive())
                elif isinstance(event, h11.InformationalResponse):
                    self.informational.append(event.status_code)
                elif isinstance(event, h11.Response):
                    head = event
                elif isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    assert head is not None
                    if self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE:
                        self.h11.start_next_cycle()
                    return head, body
                else:
                    raise AssertionError(f"unexpected event {event!r}")

    async def _receive(self) -> bytes:
        try:
            return await self.stream.receive()
        except anyio.EndOfStream:
            return b""

    async def closed(self) -> bool:
        """:returns: whether the server closed the connection (after any buffered bytes)."""
        with anyio.fail_after(HANG_GUARD_S):
            try:
                while True:
                    await self.stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return True


@asynccontextmanager
async def raw(server: Running) -> AsyncIterator[RawClient]:
    async with await anyio.connect_tcp("127.0.0.1", server.port) as stream:
        yield RawClient(stream)


def head(method: str, target: str, *extra: str, host: str | None = "127.0.0.1") -> bytes:
    lines = [f"{method} {target} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    lines.extend(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def header(response: h11.Response, name: str) -> str | None:
    for key, value in response.headers:
        if key.decode().lower() == name.lower():
            return value.decode()
    return None

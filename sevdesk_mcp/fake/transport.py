"""The httpx transport of the fake: the product's real client talks to it unchanged.

The base URL does not matter; the fake routes on the path after ``/api/v1``. A queued
connection reset raises :class:`httpx.ReadError` before anything is applied; a queued timeout
after a write raises :class:`httpx.ReadTimeout` after the change is applied (Q33).
"""

from __future__ import annotations

from typing import Final, Protocol

import anyio
import httpx

from sevdesk_mcp.fake.exchange import Action, Incoming, Outcome
from sevdesk_mcp.fake.faults import Faults

API_PREFIX: Final = "/api/v1"


class Endpoint(Protocol):
    """What a transport needs from the fake."""

    @property
    def faults(self) -> Faults:
        """The switchable failures."""
        ...

    def handle(self, incoming: Incoming) -> Outcome:
        """Answer one request."""
        ...


def api_path(raw_path: str) -> str:
    """:returns: the part of ``raw_path`` after ``/api/v1`` (all of it when that is absent)."""
    _, found, rest = raw_path.partition(API_PREFIX)
    path = rest if found else raw_path
    return path.rstrip("/") or "/"


class FakeTransport(httpx.AsyncBaseTransport):
    """An :class:`httpx.AsyncBaseTransport` answering from a fake sevDesk.

    :param fake: the fake to answer from.
    :ivar in_flight: requests being answered right now (with ``faults.latency_s``, concurrent
        requests overlap here).
    :ivar max_in_flight: the most requests that were in flight at once.
    """

    def __init__(self, fake: Endpoint) -> None:
        self._fake = fake
        self.in_flight = 0
        self.max_in_flight = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Answer ``request`` from the fake.

        :returns: the fake's answer.
        :raises httpx.ReadError: for a queued connection reset (nothing applied).
        :raises httpx.ReadTimeout: for a queued timeout after a write (the write is applied).
        """
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer(request)
        finally:
            self.in_flight -= 1

    async def _answer(self, request: httpx.Request) -> httpx.Response:
        latency_s = self._fake.faults.latency_s
        if latency_s > 0:
            await anyio.sleep(latency_s)
        body = await request.aread()
        incoming = Incoming(
            method=request.method,
            path=api_path(request.url.path),
            query=dict(request.url.params.multi_items()),
            headers={k.lower(): v for k, v in request.headers.items()},
            body=body,
        )
        outcome = self._fake.handle(incoming)
        if outcome.action is Action.RESET:
            raise httpx.ReadError("connection reset by the fake sevDesk", request=request)
        if outcome.action is Action.TIMEOUT:
            raise httpx.ReadTimeout(
                "the fake sevDesk applied the request, then timed out", request=request
            )
        return httpx.Response(
            outcome.status, headers=list(outcome.headers), content=outcome.body, request=request
        )

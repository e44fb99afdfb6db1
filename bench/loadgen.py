"""A closed-loop HTTP/1.1 load generator on raw asyncio sockets, for the benchmarks only.

Each client keeps one keep-alive connection, sends a pre-encoded request, waits for the whole
answer (``Content-Length`` framing, which both servers use for JSON answers), records the
latency and sends the next. A connection the server closes (``Connection: close``, or its
per-connection request cap) is opened again, and the reconnect counts into the latency. Parsing
is minimal on purpose: httpx costs about a millisecond of CPU per request, which made the
load generator, not the server, the limit.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, field

HEAD_END = b"\r\n\r\n"


@dataclass
class Tally:
    """What one run of one scenario saw."""

    latencies_s: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    failures: int = 0

    def count(self, status: int, latency_s: float) -> None:
        """Record one answer."""
        self.latencies_s.append(latency_s)
        self.statuses[status] = self.statuses.get(status, 0) + 1

    def summary(self, duration_s: float) -> dict[str, float]:
        """:returns: requests per second, median and p99 latency (ms), failed requests."""
        ordered = sorted(self.latencies_s) or [0.0]
        return {
            "rps": len(self.latencies_s) / duration_s,
            "median_ms": 1000 * statistics.median(ordered),
            "p99_ms": 1000 * percentile(ordered, 0.99),
            "failures": float(self.failures),
        }


def percentile(ordered: list[float], share: float) -> float:
    """:returns: the value below which ``share`` of the sorted values lie."""
    return ordered[max(0, min(len(ordered) - 1, int(len(ordered) * share) - 1))]


def request_bytes(port: int, path: str, headers: dict[str, str], body: bytes) -> bytes:
    """:returns: a complete POST request to ``127.0.0.1:port`` with a ``Content-Length``."""
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class _Answers(asyncio.Protocol):
    """Splits a byte stream into complete answers: (status, whether the server closes)."""

    def __init__(self) -> None:
        self.buffer = b""
        self.waiter: asyncio.Future[tuple[int, bool]] | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(HEAD_END)
        if end < 0:
            return
        head = self.buffer[:end].decode("latin-1").lower()
        length = 0
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name == "content-length":
                length = int(value)
        if len(self.buffer) < end + 4 + length:
            return
        self.buffer = self.buffer[end + 4 + length :]
        status = int(head.split(" ", 2)[1])
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result((status, "connection: close" in head))

    def connection_lost(self, exc: Exception | None) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError("the server closed the connection"))


class Client:
    """One keep-alive connection that sends the same request again and again."""

    def __init__(self, port: int, request: bytes) -> None:
        self._port = port
        self._request = request
        self._conn: _Answers | None = None

    async def send(self) -> int:
        """Send the request once and wait for the whole answer.

        :returns: the status code.
        :raises ConnectionError: if the server closed the connection before answering.
        """
        loop = asyncio.get_running_loop()
        if self._conn is None:
            _, self._conn = await loop.create_connection(_Answers, "127.0.0.1", self._port)
        conn = self._conn
        conn.waiter = loop.create_future()
        assert conn.transport is not None
        conn.transport.write(self._request)
        try:
            status, closing = await conn.waiter
        except ConnectionError:
            self._conn = None
            raise
        if closing:
            self.close()
        return status

    def close(self) -> None:
        """Close the connection (the next send opens a new one)."""
        if self._conn is not None and self._conn.transport is not None:
            self._conn.transport.close()
        self._conn = None


async def closed_loop(port: int, request: bytes, clients: int, duration_s: float) -> Tally:
    """Run ``clients`` clients back to back for ``duration_s``.

    :returns: every answer's status and latency; failures are connections lost mid-request.
    """
    tally = Tally()
    until = time.perf_counter() + duration_s

    async def one() -> None:
        client = Client(port, request)
        while time.perf_counter() < until:
            start = time.perf_counter()
            try:
                status = await client.send()
            except (ConnectionError, OSError):
                tally.failures += 1
                await asyncio.sleep(0.001)
                continue
            tally.count(status, time.perf_counter() - start)
        client.close()

    await asyncio.gather(*(one() for _ in range(clients)))
    return tally

"""The h11 connection on a real socket: caps, deadlines, smuggling, pipelining, floods, aborts."""

from __future__ import annotations

import errno
import json
import logging
from collections.abc import Callable
from typing import Any

import anyio
import h11
import pytest

from sevdesk_mcp.http.connection import Exchange, Wiring
from sevdesk_mcp.http.hardening import security_headers
from sevdesk_mcp.http.lifecycle import Lifecycle
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.router import Route, Router
from sevdesk_mcp.http.server import HttpServer, bound_port, open_listeners
from sevdesk_mcp.http.settings import HttpSettings, derive_site
from sevdesk_mcp.mcp.app import McpApp
from tests.http.helpers import (
    HANG_GUARD_S,
    SECRET,
    RawClient,
    bearer_settings,
    fast,
    head,
    header,
    modern_body,
    raw,
    running,
)

pytestmark = pytest.mark.anyio

JSON = "Content-Type: application/json"


def call(text: str, id: int) -> bytes:
    body = json.dumps(
        modern_body("tools/call", {"name": "echo", "arguments": {"text": text}}, id=id)
    ).encode()
    return (
        head(
            "POST",
            "/mcp",
            JSON,
            f"Content-Length: {len(body)}",
            "MCP-Protocol-Version: 2026-07-28",
            "Mcp-Method: tools/call",
            "Mcp-Name: echo",
        )
        + body
    )


async def wait_for(predicate: Callable[[], object]) -> None:
    with anyio.fail_after(HANG_GUARD_S):
        while not predicate():  # noqa: ASYNC110 - polls server state, guarded against hangs
            await anyio.sleep(0.01)


@pytest.mark.threat("H04")
async def test_a_body_announced_over_the_cap_is_refused_with_413_before_it_is_read() -> None:
    async with running(limits=fast(mcp_max_body_bytes=1000)) as server, raw(server) as c:
        await c.send(head("POST", "/mcp", JSON, "Content-Length: 5000"))  # and no body at all
        response, body = await c.response()
        assert response.status_code == 413 and b"1000 bytes" in body
        assert header(response, "connection") == "close"
        assert await c.closed()
    assert server.built == []  # no handler ever ran


@pytest.mark.threat("H04")
async def test_a_chunked_body_growing_past_the_cap_is_refused_with_413_and_close() -> None:
    async with running(limits=fast(mcp_max_body_bytes=100)) as server, raw(server) as c:
        await c.send(head("POST", "/mcp", JSON, "Transfer-Encoding: chunked"))
        await c.send(b"40\r\n" + b"a" * 64 + b"\r\n" + b"40\r\n" + b"b" * 64 + b"\r\n")
        response, _ = await c.response()
        assert response.status_code == 413
        assert await c.closed()
    assert server.built == []


@pytest.mark.threat("H02")
async def test_headers_dripping_past_the_header_deadline_get_408_and_close() -> None:
    async with running(limits=fast(header_deadline_s=0.3)) as server, raw(server) as c:
        await c.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # the head never ends
        response, _ = await c.response()
        assert response.status_code == 408
        assert await c.closed()


@pytest.mark.threat("H03")
async def test_a_stalled_body_gets_408_and_the_handler_never_starts() -> None:
    async with running(limits=fast(receive_deadline_s=0.3)) as server, raw(server) as c:
        await c.send(head("POST", "/mcp", JSON, "Content-Length: 100") + b"{" * 10)
        response, _ = await c.response()
        assert response.status_code == 408
        assert await c.closed()
    assert server.built == []
    assert [r["status"] for r in server.log_records()] == [408]


async def test_a_silent_connection_is_closed_without_an_answer() -> None:
    async with running(limits=fast(header_deadline_s=0.2)) as server, raw(server) as c:
        with anyio.fail_after(HANG_GUARD_S), pytest.raises(anyio.EndOfStream):
            await c.stream.receive()
    assert server.log_lines == []


@pytest.mark.threat("H07")
async def test_an_idle_keep_alive_connection_is_closed_after_the_idle_limit() -> None:
    async with running(limits=fast(keepalive_idle_s=0.2)) as server, raw(server) as c:
        await c.send(head("GET", "/healthz"))
        response, _ = await c.response()
        assert response.status_code == 200 and header(response, "connection") is None
        assert await c.closed()


@pytest.mark.threat("H07")
async def test_the_last_request_of_a_connection_says_connection_close() -> None:
    limits = fast(max_requests_per_connection=2)
    async with running(limits=limits) as server, raw(server) as c:
        await c.send(head("GET", "/healthz") * 2)
        first, _ = await c.response()
        second, _ = await c.response()
        assert header(first, "connection") is None
        assert header(second, "connection") == "close"
        assert await c.closed()


async def test_connection_close_from_the_client_is_honoured() -> None:
    async with running() as server, raw(server) as c:
        await c.send(head("GET", "/healthz", "Connection: close"))
        response, _ = await c.response()
        assert response.status_code == 200
        assert await c.closed()


SMUGGLING = {
    "content-length and transfer-encoding": head(
        "POST", "/mcp", JSON, "Content-Length: 4", "Transfer-Encoding: chunked"
    )
    + b"0\r\n\r\n",
    "two different content-lengths": head(
        "POST", "/mcp", JSON, "Content-Length: 4", "Content-Length: 5"
    )
    + b"{}{}{",
    "transfer-encoding gzip, chunked": head(
        "POST", "/mcp", JSON, "Transfer-Encoding: gzip, chunked"
    ),
    "chunk without CRLF (CVE-2025-43859)": head("POST", "/mcp", JSON, "Transfer-Encoding: chunked")
    + b"2\r\n{}XX0\r\n\r\n",
    "chunk size of 21 hex digits": head("POST", "/mcp", JSON, "Transfer-Encoding: chunked")
    + b"0" * 20
    + b"2\r\n{}\r\n0\r\n\r\n",
    "chunk extension with bare LF (CVE-2025-55315)": head(
        "POST", "/mcp", JSON, "Transfer-Encoding: chunked"
    )
    + b"2;x\nyy\r\n{}\r\n0\r\n\r\n",
    "bare LF line endings": b"POST /mcp HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
    b"Content-Length: 2\n\n{}",
    "transfer-encoding on HTTP/1.0": b"POST /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    "space before the colon": b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Length : 2\r\n\r\n{}",
    "missing host": b"GET /healthz HTTP/1.1\r\n\r\n",
    "NUL in the request line": b"GET /healthz\x00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
}


@pytest.mark.threat("H05")
@pytest.mark.parametrize("name", list(SMUGGLING))
@pytest.mark.parametrize("pieces", ["whole", "byte by byte"])
async def test_smuggling_byte_strings_get_400_and_close(name: str, pieces: str) -> None:
    data = SMUGGLING[name]
    async with running() as server, raw(server) as c:
        if pieces == "whole":
            await c.send(data)
        else:
            for index in range(len(data)):
                await c.send(data[index : index + 1])
        response, _ = await c.response()
        assert response.status_code == 400
        assert header(response, "connection") == "close"
        assert await c.closed()
    assert server.built == []


@pytest.mark.threat("H01")
@pytest.mark.parametrize(
    ("extra", "target", "status"),
    [
        (["X-Big: " + "a" * 5000], "/healthz", 431),
        ([f"X-{i}: y" for i in range(30)], "/healthz", 431),
        ([], "/healthz?" + "a" * 3000, 414),
    ],
    ids=["header block", "header lines", "request target"],
)
async def test_oversized_heads_are_refused(extra: list[str], target: str, status: int) -> None:
    limits = fast(max_header_bytes=4096, max_header_count=20, max_target_bytes=2000)
    async with running(limits=limits) as server, raw(server) as c:
        await c.send(head("GET", target, *extra))
        response, _ = await c.response()
        assert response.status_code == status
        assert await c.closed()


@pytest.mark.threat("H06")
async def test_pipelined_requests_are_answered_in_order() -> None:
    async with running() as server, raw(server) as c:
        await c.send(
            b"".join(call(f"message {i}", id=i) for i in range(20)) + head("GET", "/healthz")
        )
        for i in range(20):
            response, body = await c.response()
            answer = json.loads(body)
            assert response.status_code == 200 and answer["id"] == i
            assert answer["result"]["content"][0]["text"] == f"message {i}"
        response, body = await c.response()
        assert body == b'{"status":"ok"}'
    assert len(server.built) == 20  # one fresh app per request


async def test_pipelining_past_the_reader_s_budget_is_answered_whole_and_in_order() -> None:
    limits = fast(max_header_bytes=1024, mcp_max_body_bytes=1024)  # the reader pauses at 2 KiB
    async with running(limits=limits) as server, raw(server) as c:
        for i in range(40):  # about 12 KiB, sent before any answer is read
            await c.send(call(f"message {i}", id=i))
        for i in range(40):
            response, body = await c.response()
            assert response.status_code == 200 and json.loads(body)["id"] == i


async def test_expect_100_continue_is_answered_before_the_body_is_read() -> None:
    body = call("hi", id=7).split(b"\r\n\r\n", 1)[1]
    async with running() as server, raw(server) as c:
        request = head(
            "POST",
            "/mcp",
            JSON,
            f"Content-Length: {len(body)}",
            "Expect: 100-continue",
            "MCP-Protocol-Version: 2026-07-28",
            "Mcp-Method: tools/call",
            "Mcp-Name: echo",
        )
        await c.send(request)
        with anyio.fail_after(HANG_GUARD_S):
            interim = await c.stream.receive()
        assert interim.startswith(b"HTTP/1.1 100 ")
        c.h11.receive_data(interim)
        await c.send(body)
        response, answer = await c.response()
        assert response.status_code == 200 and json.loads(answer)["id"] == 7


@pytest.mark.threat("H08")
async def test_connections_over_the_cap_are_closed_at_once() -> None:
    async with running(limits=fast(max_connections=3)) as server:
        clients: list[RawClient] = []
        for _ in range(3):
            stream = await anyio.connect_tcp("127.0.0.1", server.port)
            client = RawClient(stream)
            await client.send(head("GET", "/healthz"))
            assert (await client.response())[0].status_code == 200  # accepted and counted
            clients.append(client)
        async with raw(server) as extra:
            await extra.send(head("GET", "/healthz"))
            assert await extra.closed()  # closed without an answer
        await clients.pop().stream.aclose()
        await wait_for(lambda: server.service.server.connections < 3)
        async with raw(server) as late:
            await late.send(head("GET", "/healthz"))
            assert (await late.response())[0].status_code == 200
        for client in clients:
            await client.stream.aclose()


def slow_call(*extra: str) -> bytes:
    body = json.dumps(modern_body("tools/call", {"name": "slow"}))  # held past every guard
    return (
        head(
            "POST",
            "/mcp",
            JSON,
            f"Content-Length: {len(body)}",
            "MCP-Protocol-Version: 2026-07-28",
            "Mcp-Method: tools/call",
            "Mcp-Name: slow",
            *extra,
        )
        + body.encode()
    )


@pytest.mark.threat("H09")
async def test_a_client_abort_mid_call_cancels_the_handler_and_logs_nothing_unredacted(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    async with running(settings=bearer_settings()) as server:
        async with raw(server) as c:
            await c.send(slow_call(f"Authorization: Bearer {SECRET}"))
            with anyio.fail_after(HANG_GUARD_S):
                await server.tools.started.wait()
        await wait_for(lambda: server.tools.cancelled)
        await wait_for(lambda: server.log_lines)
    record = server.log_records()[0]
    assert record["status"] == 499 and record["aborted"] == "client closed the connection"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    output = caplog.text + "".join(capfd.readouterr()) + "".join(server.log_lines)
    assert "Traceback" not in output and SECRET not in output


async def test_a_handler_past_the_request_deadline_is_stopped_with_503() -> None:
    async with running(limits=fast(request_deadline_s=0.3)) as server, raw(server) as c:
        await c.send(slow_call())
        response, _ = await c.response()
        assert response.status_code == 503
        assert server.tools.cancelled
    assert server.log_records()[0]["deadline"] == "exceeded"


@pytest.mark.threat("H11")
async def test_an_unexpected_failure_is_500_with_a_reference_and_no_details(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken() -> McpApp:
        raise RuntimeError("secret-detail-that-must-not-leak")

    async with running(build=broken) as server, raw(server) as c:
        await c.send(call("hi", id=1))
        response, body = await c.response()
    assert response.status_code == 500
    assert b"reference" in body and b"secret-detail" not in body and b"Traceback" not in body
    assert "internal error on /mcp" in caplog.text


@pytest.mark.threat("H11")
async def test_a_header_value_with_cr_lf_becomes_500_and_never_a_split_header() -> None:
    async def careless(exchange: Exchange) -> None:
        await exchange.respond(200, [("x-note", "a\r\nset-cookie: pwned=1")], b"ok")

    listeners = await open_listeners("127.0.0.1", 0)
    port = bound_port(listeners)
    site = derive_site(HttpSettings(port=0), port)
    limits = fast()
    router = Router({"/careless": Route({"GET": careless})}, site, limits)
    wiring = Wiring(router, limits, security_headers(site), AccessLog(lambda _: None), Lifecycle())
    async with anyio.create_task_group() as tg:
        tg.start_soon(HttpServer(listeners, wiring).serve)
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            client = RawClient(stream)
            await client.send(head("GET", "/careless"))
            response, body = await client.response()
            assert await client.closed()
        tg.cancel_scope.cancel()
    assert response.status_code == 500 and b"reference" in body
    assert header(response, "set-cookie") is None


class FlakyListener:
    """Fails its first accept with EMFILE, then accepts for real."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.failed = False

    async def accept(self) -> Any:
        if not self.failed:
            self.failed = True
            raise OSError(errno.EMFILE, "Too many open files")
        return await self.real.accept()

    async def aclose(self) -> None:
        await self.real.aclose()


@pytest.mark.threat("H08")
async def test_the_accept_loop_survives_running_out_of_file_descriptors(
    caplog: pytest.LogCaptureFixture,
) -> None:
    listeners = await open_listeners("127.0.0.1", 0)
    port = bound_port(listeners)
    site = derive_site(HttpSettings(port=0), port)
    limits = fast()
    router = Router({}, site, limits)
    wiring = Wiring(router, limits, security_headers(site), AccessLog(lambda _: None), Lifecycle())
    flaky: Any = FlakyListener(listeners[0])
    async with anyio.create_task_group() as tg:
        tg.start_soon(HttpServer([flaky], wiring).serve)
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            client = RawClient(stream)
            await client.send(head("GET", "/nowhere"))
            response, _ = await client.response()
        tg.cancel_scope.cancel()
    assert flaky.failed and response.status_code == 404
    assert "accepting a connection failed (Too many open files); retrying" in caplog.text


async def test_the_fixed_headers_follow_the_status_line_on_every_answer_of_a_connection() -> None:
    async with running() as server, raw(server) as c:
        for _ in range(2):  # the second answer shows that h11 kept the connection's state
            await c.send(head("GET", "/healthz"))
            response, body = await c.response()
            names = [name.decode() for name, _ in response.headers]
            assert response.status_code == 200 and body == b'{"status":"ok"}'
            assert names == [
                *(name for name, _ in security_headers(server.service.site)),
                "content-type",
                "content-length",
            ]


def test_fixed_headers_are_checked_once_and_never_decide_the_framing() -> None:
    limits = fast()

    def wiring(headers: list[tuple[str, str]]) -> Wiring:
        return Wiring(Router({}, SITE, limits), limits, headers, AccessLog(), Lifecycle())

    assert wiring([("x-a", "1"), ("X-B", "2")]).base_block == b"x-a: 1\r\nX-B: 2\r\n"
    for framing in ("Content-Length", "transfer-encoding", "connection"):
        with pytest.raises(ValueError, match="framing"):
            wiring([(framing, "1")])
    with pytest.raises(h11.LocalProtocolError):
        wiring([("x-note", "a\r\nset-cookie: pwned=1")])


SITE = derive_site(HttpSettings(port=0), 8080)

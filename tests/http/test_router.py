"""The router's rules on a real socket: Host, Origin, paths, methods, rate and in-flight limits."""

from __future__ import annotations

import anyio
import pytest

from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.settings import HttpSettings
from tests.http.helpers import (
    HANG_GUARD_S,
    fast,
    head,
    header,
    http,
    modern_body,
    modern_headers,
    post_modern,
    raw,
    running,
)

pytestmark = pytest.mark.anyio

SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "cache-control": "no-store, no-transform",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


@pytest.mark.threat("H10")
@pytest.mark.parametrize("host", ["evil.example.com", "evil.example.com:8080", "127.0.0.1.evil"])
async def test_a_host_that_is_not_allowed_gets_421(host: str) -> None:
    async with running() as server, http(server) as client:
        response = await post_modern(client, "tools/list", host=host)
    assert response.status_code == 421
    assert server.built == []


@pytest.mark.threat("H10")
async def test_the_dns_rebinding_probe_is_refused_and_the_loopback_one_served() -> None:
    async with running() as server, http(server) as client:
        evil = await post_modern(
            client, "server/discover", host="evil.example.com", origin="http://evil.example.com"
        )
        local = f"127.0.0.1:{server.port}"
        good = await post_modern(client, "server/discover", host=local, origin=f"http://{local}")
        named = await post_modern(client, "server/discover", host=f"localhost:{server.port}")
        ipv6 = await post_modern(client, "server/discover", host=f"[::1]:{server.port}")
    assert evil.status_code == 421
    assert [good.status_code, named.status_code, ipv6.status_code] == [200, 200, 200]


@pytest.mark.threat("H10")
async def test_healthz_is_exempt_from_the_host_check() -> None:
    async with running() as server, http(server) as client:
        response = await client.get("/healthz", headers={"host": "evil.example.com"})
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.threat("H10")
@pytest.mark.parametrize("origin", ["http://evil.example.com", "null", "http://127.0.0.1:1"])
async def test_a_foreign_origin_gets_403(origin: str) -> None:
    async with running() as server, http(server) as client:
        response = await post_modern(client, "tools/list", origin=origin)
    assert response.status_code == 403


async def test_no_origin_and_the_servers_own_origin_are_allowed() -> None:
    async with running() as server, http(server) as client:
        without = await post_modern(client, "tools/list")
        own = await post_modern(client, "tools/list", origin=f"http://localhost:{server.port}")
    assert [without.status_code, own.status_code] == [200, 200]


async def test_configured_hosts_and_origins_are_allowed_besides_the_derived_ones() -> None:
    settings = HttpSettings(
        host="127.0.0.1",
        port=0,
        allowed_hosts=("mcp.example.test",),
        allowed_origins=("https://claude.ai",),
    )
    async with running(settings=settings) as server, http(server) as client:
        response = await post_modern(
            client, "tools/list", host="mcp.example.test", origin="https://claude.ai"
        )
        local = await post_modern(client, "tools/list")
    assert [response.status_code, local.status_code] == [200, 200]


@pytest.mark.threat("H11")
@pytest.mark.parametrize(
    ("target", "status"),
    [
        ("/mcp/../x", 404),
        ("/%2e%2e/mcp", 404),
        ("/%6dcp", 404),
        ("//mcp", 404),
        ("/mcp/", 404),
        ("/MCP", 404),
        ("/mcp%00", 400),
        ("/mcp%0a", 400),
        ("/%zz", 400),
        ("/mcp%", 400),
        ("*", 400),
        ("http://127.0.0.1/mcp", 400),
    ],
)
async def test_path_tricks_never_reach_a_route(target: str, status: int) -> None:
    async with running() as server, raw(server) as c:
        await c.send(head("POST", target, "Content-Length: 0"))
        response, _ = await c.response()
    assert response.status_code == status
    assert server.built == []


@pytest.mark.threat("H11")
@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/mcp", "POST"),
        ("DELETE", "/mcp", "POST"),
        ("PUT", "/mcp", "DELETE, GET, POST"),  # GET and DELETE: 2025-era sessions (issue 17)
        ("OPTIONS", "/mcp", "DELETE, GET, POST"),
        ("POST", "/healthz", "GET"),
    ],
)
async def test_other_methods_get_405_with_allow(method: str, path: str, allow: str) -> None:
    async with running() as server, http(server) as client:
        response = await client.request(method, path)
    assert response.status_code == 405
    assert response.headers["allow"] == allow


@pytest.mark.threat("H11")
async def test_a_post_that_is_not_json_gets_415() -> None:
    async with running() as server, http(server) as client:
        response = await client.post("/mcp", content=b"x", headers={"content-type": "text/plain"})
    assert response.status_code == 415


@pytest.mark.threat("H11")
async def test_security_headers_are_on_every_response() -> None:
    async with running() as server, http(server) as client:
        responses = [
            await client.get("/healthz"),
            await post_modern(client, "tools/list"),
            await client.get("/nowhere"),
            await client.get("/mcp"),
            await post_modern(client, "tools/list", host="evil.example.com"),
        ]
        async with raw(server) as c:
            await c.send(head("POST", "/mcp", "Content-Length: 1", "Transfer-Encoding: chunked"))
            refused, _ = await c.response()
    assert [r.status_code for r in responses] == [200, 200, 404, 405, 421]
    for response in responses:
        for name, value in SECURITY_HEADERS.items():
            assert response.headers[name] == value
        assert "strict-transport-security" not in response.headers
    assert refused.status_code == 400
    assert header(refused, "x-content-type-options") == "nosniff"


async def test_hsts_is_sent_when_the_public_url_is_https() -> None:
    settings = HttpSettings(host="127.0.0.1", port=0, public_url="https://mcp.example.test")
    async with running(settings=settings) as server, http(server) as client:
        response = await client.get("/healthz")
        mcp = await post_modern(client, "tools/list", host="mcp.example.test")
    assert response.headers["strict-transport-security"] == "max-age=31536000"
    assert mcp.status_code == 200


@pytest.mark.parametrize("path", ["/mcp", "/nowhere"])
async def test_the_rate_limit_answers_429_with_retry_after(path: str) -> None:
    limits = fast(rate_burst=2, rate_per_s=0.01)
    async with running(limits=limits) as server, http(server) as client:
        statuses = [(await client.post(path, json={})).status_code for _ in range(3)]
        limited = await client.post(path, json={})
        health = await client.get("/healthz")
    assert statuses[2] == 429 and statuses[0] != 429
    assert int(limited.headers["retry-after"]) >= 1
    assert health.status_code == 200  # health checks are never rate limited


@pytest.mark.parametrize(("trust", "separate"), [(1, True), (0, False)])
async def test_x_forwarded_for_counts_only_with_trusted_proxies(trust: int, separate: bool) -> None:
    settings = HttpSettings(host="127.0.0.1", port=0, trust_proxy=trust)
    limits = fast(rate_burst=1, rate_per_s=0.01)
    async with running(settings=settings, limits=limits) as server, http(server) as client:
        first = await post_modern(client, "tools/list", **{"x-forwarded-for": "10.0.0.1"})
        again = await post_modern(client, "tools/list", **{"x-forwarded-for": "10.0.0.1"})
        other = await post_modern(client, "tools/list", **{"x-forwarded-for": "10.0.0.2"})
    assert [first.status_code, again.status_code] == [200, 429]
    assert other.status_code == (200 if separate else 429)
    clients = [record["client"] for record in server.log_records()]
    assert clients == (["10.0.0.1", "10.0.0.1", "10.0.0.2"] if separate else ["127.0.0.1"] * 3)


@pytest.mark.parametrize(
    ("limits", "status"),
    [
        (fast(max_inflight_per_client=1), 429),
        (fast(max_inflight_per_client=5, max_inflight=1), 503),
    ],
)
async def test_requests_in_flight_are_capped(limits: Limits, status: int) -> None:
    slow = {"name": "slow"}  # held past every guard: only the cancellation ends it
    async with (
        running(limits=limits) as server,
        http(server) as client,
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(post_modern, client, "tools/call", slow)
        with anyio.fail_after(HANG_GUARD_S):
            await server.tools.started.wait()
        refused = await post_modern(client, "tools/list")
        health = await client.get("/healthz")
        tg.cancel_scope.cancel()
    assert refused.status_code == status and refused.headers["retry-after"] == "1"
    assert health.status_code == 200


async def test_a_draining_server_refuses_new_mcp_requests_with_503() -> None:
    async with running() as server, http(server) as client:
        server.service.lifecycle.draining = True
        response = await client.post(
            "/mcp", json=modern_body("tools/list"), headers=modern_headers("tools/list")
        )
        health = await client.get("/healthz")
    assert response.status_code == 503 and response.headers["retry-after"] == "1"
    assert health.status_code == 503 and health.json() == {"status": "shutting down"}

"""Threat cases H08 and F02 over HTTP: connections per client address, secrets in the access log.

Issue 12, finding 9: one client address could hold all 256 connections, and the access log
masked a bearer secret only whole, so a prefix of it, a piece of it, or the secret cut short by
the path's length cap was written to the log as is.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, cast

import anyio
import anyio.abc
import pytest
from msgspec.structs import replace

from sevdesk_mcp.errors import ConfigError
from sevdesk_mcp.http.limits import (
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_LIMIT,
    MAX_CONNECTIONS_PER_CLIENT,
)
from sevdesk_mcp.http.log import MAX_PATH_CHARS, mask_client_text
from sevdesk_mcp.http.server import _peer_address
from sevdesk_mcp.http.settings import HttpSettings, limits_for, load_http_settings
from sevdesk_mcp.safety.redact import MASK, Redactor
from tests.http.helpers import (
    HANG_GUARD_S,
    RawClient,
    Running,
    fast,
    head,
    http,
    raw,
    running,
)

pytestmark = pytest.mark.anyio

OTHER_LOOPBACK = "127.0.0.2"  # another client address that still reaches 127.0.0.1 (Linux)


async def wait_for(predicate: Callable[[], object]) -> None:
    with anyio.fail_after(HANG_GUARD_S):
        while not predicate():  # noqa: ASYNC110 - polls server state, guarded against hangs
            await anyio.sleep(0.01)


@asynccontextmanager
async def connect(server: Running, local_host: str = "127.0.0.1") -> AsyncIterator[RawClient]:
    async with await anyio.connect_tcp("127.0.0.1", server.port, local_host=local_host) as s:
        yield RawClient(s)


async def served(client: RawClient) -> bool:
    """:returns: whether ``GET /healthz`` on ``client`` is answered with 200."""
    await client.send(head("GET", "/healthz"))
    response, _ = await client.response()
    return response.status_code == 200


async def closed_unanswered(client: RawClient) -> bool:
    """:returns: whether the server closed ``client`` without answering a byte of a request it
    would otherwise have answered (and then closed: the request says ``Connection: close``)."""
    received = b""
    with anyio.fail_after(HANG_GUARD_S):
        try:
            await client.send(head("GET", "/healthz", "Connection: close"))
            while True:
                received += await client.stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            pass
    return received == b""


# --- H08: connections per client address ---


@pytest.mark.threat("H08")
async def test_one_address_is_capped_while_another_address_is_still_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="sevdesk_mcp.http")
    async with running(limits=fast(max_connections_per_client=2)) as server:
        async with raw(server) as first, raw(server) as second:
            assert await served(first) and await served(second)
            for _ in range(3):
                async with raw(server) as third:
                    assert await closed_unanswered(third)
            async with connect(server, OTHER_LOOPBACK) as other:
                assert await served(other)
            assert await served(first) and await served(second)  # untouched by the refusals
        await wait_for(lambda: not server.service.server.per_client)
        async with raw(server) as again:
            assert await served(again)  # the address let go, so it is served again
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1  # once per address, not once per refused connection
    assert "127.0.0.1 holds 2 connections, the cap per client address" in warnings[0]
    assert "SEVDESK_HTTP_TRUST_PROXY" in warnings[0]
    assert "SEVDESK_HTTP_CONNECTIONS_PER_CLIENT" in warnings[0]


@pytest.mark.threat("H08")
async def test_connections_refused_by_the_cap_are_not_counted_and_free_no_slot() -> None:
    async with running(limits=fast(max_connections_per_client=1)) as server, raw(server) as held:
        assert await served(held)
        for _ in range(5):
            async with raw(server) as extra:
                assert await closed_unanswered(extra)
        assert server.service.server.per_client == {"127.0.0.1": 1}
        assert server.service.server.connections == 1
        assert await served(held)


class _GoneStream:
    """A socket stream whose client left before it was accepted: no peer address."""

    def extra(self, attribute: object, default: object = None) -> object:
        return default


@pytest.mark.threat("H08")
def test_a_connection_whose_client_left_before_it_was_accepted_has_no_address() -> None:
    assert _peer_address(cast("anyio.abc.SocketStream", _GoneStream())) is None


@pytest.mark.threat("H08")
def test_the_connection_cap_per_address_is_a_setting_lifted_behind_trusted_proxies() -> None:
    assert MAX_CONNECTIONS_PER_CLIENT == 32
    assert limits_for(load_http_settings({})).max_connections_per_client == 32
    assert limits_for(HttpSettings(trust_proxy=1)).max_connections_per_client == MAX_CONNECTIONS
    tuned = {"SEVDESK_HTTP_CONNECTIONS_PER_CLIENT": "8"}
    assert limits_for(load_http_settings(tuned)).max_connections_per_client == 8
    proxied = load_http_settings({**tuned, "SEVDESK_HTTP_TRUST_PROXY": "1"})
    assert limits_for(proxied).max_connections_per_client == 8  # set explicitly: kept
    # never above the total of SEVDESK_HTTP_MAX_CONNECTIONS
    assert (
        limits_for(
            load_http_settings({**tuned, "SEVDESK_HTTP_MAX_CONNECTIONS": "16"})
        ).max_connections_per_client
        == 8
    )
    assert (
        limits_for(
            load_http_settings(
                {
                    "SEVDESK_HTTP_CONNECTIONS_PER_CLIENT": "300",
                    "SEVDESK_HTTP_MAX_CONNECTIONS": "100",
                }
            )
        ).max_connections_per_client
        == 100
    )
    for bad in ("0", str(MAX_CONNECTIONS_LIMIT + 1), "many", "-1"):
        with pytest.raises(ConfigError, match="SEVDESK_HTTP_CONNECTIONS_PER_CLIENT") as caught:
            load_http_settings({"SEVDESK_HTTP_CONNECTIONS_PER_CLIENT": bad})
        assert f"from 1 to {MAX_CONNECTIONS_LIMIT}" in str(caught.value)


# --- F02: the access log masks pieces of secrets and likely tokens ---


def _canary_settings() -> tuple[str, HttpSettings]:
    """:returns: a fresh bearer secret (no earlier test registered it) and the settings that
    read it the way the command line does."""
    secret = secrets.token_urlsafe(32)
    env = {"SEVDESK_HTTP_AUTH": "bearer", "SEVDESK_HTTP_SECRET": secret}
    return secret, replace(load_http_settings(env), port=0)


def _percent_encoded(text: str) -> str:
    return "".join(f"%{ord(c):02X}" for c in text)


async def _logged_paths(settings: HttpSettings, paths: list[str]) -> list[dict[str, Any]]:
    async with running(settings=settings) as server, http(server) as client:
        for path in paths:
            await client.get(path)
    return server.log_records()


@pytest.mark.threat("F02")
async def test_a_piece_of_the_bearer_secret_in_a_path_is_masked_in_the_access_log() -> None:
    secret, settings = _canary_settings()
    pieces = {
        "prefix": "/mcp/" + secret[:12],
        "piece": "/" + secret[9:20],
        "other case": "/" + secret[9:20].swapcase(),
        "percent-encoded": "/x/" + _percent_encoded(secret[3:15]),
        "cut by the cap": "/" + "y" * (MAX_PATH_CHARS - 8) + secret,
    }
    records = await _logged_paths(settings, list(pieces.values()))
    logged = [record["path"] for record in records]
    assert len(logged) == len(pieces)
    for path in logged:
        assert MASK in path
        lower = path.lower()
        assert not any(secret[i : i + 7].lower() in lower for i in range(len(secret) - 6))
    assert logged[-1] == MASK  # judged before the cut, which would have left 7 characters


@pytest.mark.threat("F02")
async def test_a_likely_token_in_a_path_is_masked_even_if_it_is_no_configured_secret() -> None:
    _, settings = _canary_settings()
    stranger = secrets.token_hex(16)  # say, a sevDesk token pasted into a URL
    readable = "/.well-known/oauth-protected-resource/mcp"
    records = await _logged_paths(settings, [f"/mcp/{stranger}/x", readable, "/mcp?k=v"])
    assert [record["path"] for record in records] == [f"/mcp/{MASK}/x", readable, "/mcp"]


@pytest.mark.threat("F02")
async def test_a_piece_of_the_bearer_secret_in_an_mcp_method_is_masked_in_the_access_log() -> None:
    secret, settings = _canary_settings()
    method = "notifications/" + secret[4:15]
    async with running(settings=settings) as server, http(server) as client:
        response = await client.post(
            "/mcp",
            json={"jsonrpc": "2.0", "method": method},
            headers={"authorization": f"Bearer {secret}"},
        )
    assert response.status_code == 202
    (record,) = server.log_records()
    assert record["mcp_method"] == MASK  # the whole run of secret characters, "/" included
    assert secret[4:15] not in "".join(server.log_lines)


@pytest.mark.threat("F02")
def test_masking_happens_before_the_cut_and_never_hides_ordinary_text() -> None:
    secret = "Q" + secrets.token_urlsafe(40)
    pieces = Redactor()
    pieces.add(secret)
    assert mask_client_text("x" * 20 + secret, 24, pieces) == MASK  # no 4 characters left over
    assert mask_client_text("a/" + secret[:8], 200, pieces) == MASK  # 8 characters are enough
    assert mask_client_text("a/" + secret[:7], 200, pieces) == "a/" + secret[:7]  # 7 are not
    for text in ("/mcp", "/healthz", "tools/call", "notifications/initialized", "2026-07-28"):
        assert mask_client_text(text, 200, pieces) == text


@pytest.mark.threat("F02")
async def test_a_piece_of_the_bearer_secret_as_the_http_method_is_masked_in_the_access_log() -> (
    None
):
    secret, settings = _canary_settings()
    async with running(settings=settings) as server, raw(server) as client:
        await client.send(head(secret[:12], "/mcp"))
        response, _ = await client.response()
    assert response.status_code == 405
    (record,) = server.log_records()
    assert record["method"] == MASK
    assert secret[:8] not in "".join(server.log_lines)

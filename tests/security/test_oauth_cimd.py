"""Client ID Metadata Documents: the SSRF guard and the strict validation (issue 16).

Documents are served by the test over https on 127.0.0.1 (its own certificate authority);
addresses outside loopback are refused before any connection is made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sevdesk_mcp.errors import UnsafeClientError
from sevdesk_mcp.http.oauth.cimd import MAX_DOCUMENT_BYTES, CimdFetcher
from sevdesk_mcp.http.oauth.clients import ClientResolver
from sevdesk_mcp.http.oauth.store import MemoryGrantStore
from tests.clock import Clock
from tests.interop.oauth_sdk_support import DocumentServer, document_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def served(tmp_path: Path) -> Iterator[DocumentServer]:
    with document_server(tmp_path) as server:
        yield server


def fetcher(served: DocumentServer, clock: Clock | None = None) -> CimdFetcher:
    return CimdFetcher(allow_loopback=True, verify=served.trust, clock=clock or Clock(1000.0))


async def refusal(fetch: CimdFetcher, url: str) -> str:
    with pytest.raises(UnsafeClientError) as caught:
        await fetch.fetch(url)
    return caught.value.description


async def test_a_valid_document_is_fetched_and_cached_as_its_headers_say(
    served: DocumentServer,
) -> None:
    clock = Clock(1000.0)
    fetch = fetcher(served, clock)
    first = await fetch.fetch(served.url)
    await fetch.fetch(served.url)
    clock.now += 61  # max-age=60 has passed
    await fetch.fetch(served.url)
    served.cache_control = "no-store"
    clock.now += 61
    await fetch.fetch(served.url)
    await fetch.fetch(served.url)
    assert first.client_name == "SDK Test Client"
    assert len(served.fetches) == 4


async def test_loopback_is_refused_without_the_test_setting(served: DocumentServer) -> None:
    fetch = CimdFetcher(verify=served.trust)
    assert "private or special address" in await refusal(fetch, served.url)
    assert served.fetches == []


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.8/client.json",
        "https://169.254.169.254/latest/meta-data",
        "https://[fd00::1]/client.json",
        "https://[::ffff:192.168.1.1]/client.json",
        "https://0.0.0.0/client.json",
    ],
)
async def test_private_link_local_and_special_addresses_are_refused(url: str) -> None:
    fetch = CimdFetcher(allow_loopback=True)
    assert "private or special address" in await refusal(fetch, url)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/client.json",
        "https://127.0.0.1",
        "https://127.0.0.1/",
        "https://127.0.0.1/a/../client.json",
        "https://127.0.0.1/./client.json",
        "https://user@127.0.0.1/client.json",
        "https://127.0.0.1/client.json?x=1",
        "https://127.0.0.1/client.json#f",
        "https://127.0.0.1:99999/client.json",
    ],
)
async def test_malformed_client_id_urls_are_refused_before_any_fetch(url: str) -> None:
    assert "client_id" in await refusal(CimdFetcher(allow_loopback=True), url)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"client_id": "https://127.0.0.1/other.json"}, "not exactly the URL"),
        ({"client_secret": "s"}, "client secret"),
        ({"token_endpoint_auth_method": "client_secret_post"}, "public clients"),
        ({"grant_types": ["password"]}, "grants are supported"),
        ({"response_types": ["token"]}, "code response type"),
        ({"redirect_uris": ["http://evil.example/cb"]}, "redirect URI"),
        ({"redirect_uris": []}, "not valid"),
        ({"client_name": None}, "not valid"),
    ],
)
async def test_invalid_documents_are_refused_and_never_cached(
    served: DocumentServer, change: dict[str, Any], reason: str
) -> None:
    served.document.update(change)
    fetch = fetcher(served)
    assert reason in await refusal(fetch, served.url)
    assert reason in await refusal(fetch, served.url)
    assert len(served.fetches) == 2


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        ({"status": 302, "headers": {"location": "https://127.0.0.1/x.json"}}, "HTTP 302"),
        ({"status": 404}, "HTTP 404"),
        ({"content_type": "text/html"}, "application/json"),
        ({"body": b"[1, 2"}, "not valid"),
        ({"body": b"{" + b" " * MAX_DOCUMENT_BYTES + b"}"}, "larger than 64 KiB"),
    ],
)
async def test_redirects_errors_other_types_and_oversized_answers_are_refused(
    served: DocumentServer, setup: dict[str, Any], reason: str
) -> None:
    for name, value in setup.items():
        setattr(served, name, value)
    assert reason in await refusal(fetcher(served), served.url)


async def test_the_client_host_allowlist_refuses_other_hosts(served: DocumentServer) -> None:
    resolver = ClientResolver(MemoryGrantStore(), fetcher(served), frozenset({"claude.ai"}))
    with pytest.raises(UnsafeClientError) as caught:
        await resolver.resolve(served.url)
    assert "SEVDESK_HTTP_OAUTH_CLIENT_HOSTS" in caught.value.description
    assert served.fetches == []
    assert resolver.host_allowed(None) and not resolver.host_allowed("127.0.0.1")

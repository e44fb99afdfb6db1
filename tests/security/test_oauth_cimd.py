"""Client ID Metadata Documents: the SSRF guard and the strict validation (issue 16).

Documents are served by the test over https on 127.0.0.1 (its own certificate authority);
addresses outside loopback are refused before any connection is made."""

from __future__ import annotations

import gzip
import html
import ipaddress
import json
import logging
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from sevdesk_mcp.cli.oauth import OAuthSeams
from sevdesk_mcp.errors import ConfigError, UnsafeClientError
from sevdesk_mcp.http.oauth.addresses import public_address
from sevdesk_mcp.http.oauth.cimd import MAX_DOCUMENT_BYTES, CimdFetcher
from sevdesk_mcp.http.oauth.cimd_body import CappedBody
from sevdesk_mcp.http.oauth.clients import ClientResolver
from sevdesk_mcp.http.oauth.store import MemoryGrantStore
from sevdesk_mcp.http.oauth_settings import load_oauth_settings
from tests.clock import Clock
from tests.http.oauth_support import authorize_query, browserless, oauth_server, pkce
from tests.http.socket_servers import read_request, refusing_port, socket_server
from tests.interop.oauth_sdk_support import DocumentServer, certificate, document_server

pytestmark = pytest.mark.anyio
# An answer refused mid-stream leaves httpx's and httpcore's inner stream generators to trio's
# finalizer (the fetcher closes the outer one at once); trio warns, nothing leaks.
EARLY_CLOSE = pytest.mark.filterwarnings("ignore:Async generator 'http(x|core)\\.:ResourceWarning")


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


# Issue 35, finding 3: the address guard, fetch failures, gzip and the operator's CA file.

NON_PUBLIC_V4 = ["127.0.0.1", "10.1.2.3", "172.16.5.4", "192.168.1.1", "169.254.169.254"]
EMBEDDINGS = [
    "64:ff9b::/96",
    "64:ff9b:1::/48",
    "2002::/16",
    "::/96",
    "::ffff:0:0/96",
    "::ffff:0:0:0/96",  # IPv4-translated (SIIT), found by the final review
]


def embed(prefix: str, v4: str) -> str:
    """:returns: ``v4`` inside an IPv6 address of ``prefix`` (6to4: bits 16-47; else the last
    32 bits, the /96 layout of RFC 6052 for both NAT64 prefixes)."""
    base = int(ipaddress.IPv6Network(prefix).network_address)
    value = int(ipaddress.IPv4Address(v4))
    shift = 80 if prefix == "2002::/16" else 0
    return str(ipaddress.IPv6Address(base | value << shift))


@pytest.mark.threat("I35-3a")
@pytest.mark.parametrize("prefix", EMBEDDINGS)
@pytest.mark.parametrize("v4", NON_PUBLIC_V4)
@pytest.mark.parametrize("loopback_clients", [False, True])
def test_ipv6_forms_embedding_a_loopback_private_or_link_local_ipv4_are_refused(
    prefix: str, v4: str, loopback_clients: bool
) -> None:
    address = embed(prefix, v4)
    assert not public_address(address, allow_loopback=loopback_clients), address


@pytest.mark.threat("I35-3a")
@pytest.mark.parametrize("prefix", EMBEDDINGS)
@pytest.mark.parametrize("v4", ["93.184.215.14", "8.8.8.8", "192.0.2.7", "100.64.0.1"])
def test_an_embedded_ipv4_is_judged_as_the_ipv4_itself(prefix: str, v4: str) -> None:
    expected = public_address(v4, allow_loopback=False)
    assert public_address(embed(prefix, v4), allow_loopback=False) is expected
    assert expected is (v4 in ("93.184.215.14", "8.8.8.8"))


@pytest.mark.threat("I35-3a")
@pytest.mark.parametrize(
    "address",
    [
        "fec0::1",
        "fec0::808:808",
        "feff:ffff::1",
        "64:ff9b:1:a00:1::",  # local-use NAT64 in another layout than /96: refused
        "::",
        "::ffff:0:0",
        "::1:2:3:4",  # the rest of the reserved ::/8
        "3fff::1",  # documentation (RFC 9637), not yet in every Python's table
        "5f00::1",  # segment routing (RFC 9602), likewise
    ],
)
def test_site_local_and_unclear_ipv6_forms_are_refused_outright(address: str) -> None:
    assert not public_address(address, allow_loopback=True)


@pytest.mark.threat("I35-3a")
def test_plain_loopback_stays_a_test_setting_and_public_ipv6_passes() -> None:
    assert public_address("127.0.0.1", allow_loopback=True)
    assert public_address("::1", allow_loopback=True)
    assert not public_address("::1", allow_loopback=False)
    assert public_address("2606:4700:4700::1111", allow_loopback=False)
    assert public_address("fe80::1%eth0", allow_loopback=True) is False


async def authorize_page(
    folder: Path, client_id: str, *, env: dict[str, str] | None = None, trust: Any = True
) -> httpx.Response:
    """:returns: the answer of ``GET /authorize`` for a metadata-document ``client_id``."""
    full = {"SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS": "1", **(env or {})}
    seams = OAuthSeams(verify=trust)
    _, challenge = pkce()
    query = urlencode(authorize_query(client_id, challenge))
    async with (
        oauth_server(folder / "state", env=full, seams=seams) as server,
        browserless(server) as http,
    ):
        return await http.get(f"/authorize?{query}")


def assert_error_page(answer: httpx.Response, caplog: pytest.LogCaptureFixture, *said: str) -> None:
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    assert "cannot be used" in answer.text
    for words in said:
        assert words in html.unescape(answer.text), answer.text
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.exc_info], caplog.text


def half_a_body(conn: socket.socket) -> None:
    read_request(conn)
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 900\r\n\r\n"
    conn.sendall(head + b'{"client_id": "https://127.0.0.1')


def not_tls(conn: socket.socket) -> None:
    conn.recv(4096)  # the TLS client hello
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")


@pytest.mark.threat("I35-3b")
async def test_a_refused_connection_is_the_error_page(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with refusing_port() as port:
        answer = await authorize_page(tmp_path, f"https://127.0.0.1:{port}/client.json")
    assert_error_page(answer, caplog, f"127.0.0.1:{port}", "refused or unreachable")


@pytest.mark.threat("I35-3b")
async def test_a_server_that_does_not_speak_tls_is_the_error_page(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with socket_server(not_tls) as port:
        answer = await authorize_page(tmp_path, f"https://127.0.0.1:{port}/client.json")
    assert_error_page(answer, caplog, "TLS handshake", "https")


@pytest.mark.threat("I35-3b")
async def test_an_untrusted_certificate_is_the_error_page(
    served: DocumentServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    answer = await authorize_page(tmp_path, served.url)
    assert_error_page(answer, caplog, "is not trusted", "certificate authority")
    assert served.fetches == []


@pytest.mark.threat("I35-3b")
async def test_a_connection_closed_mid_body_is_the_error_page(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    cert, key = certificate(tmp_path)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    trust = ssl.create_default_context(cafile=str(cert))
    with socket_server(half_a_body, tls) as port:
        url = f"https://127.0.0.1:{port}/client.json"
        answer = await authorize_page(tmp_path, url, trust=trust)
    assert_error_page(answer, caplog, "broke off", "complete document")


@pytest.mark.threat("I35-3c")
async def test_a_gzipped_document_is_accepted(served: DocumentServer) -> None:
    served.body = gzip.compress(json.dumps(served.document).encode())
    served.headers = {"content-encoding": "gzip"}
    document = await fetcher(served).fetch(served.url)
    assert document.client_name == "SDK Test Client"


@pytest.mark.threat("I35-3c")
@EARLY_CLOSE
async def test_a_gzip_bomb_is_refused(served: DocumentServer) -> None:
    served.body = gzip.compress(b" " * (256 * MAX_DOCUMENT_BYTES))
    served.headers = {"content-encoding": "gzip"}
    assert len(served.body) < MAX_DOCUMENT_BYTES
    assert "larger than 64 KiB" in await refusal(fetcher(served), served.url)


@pytest.mark.threat("I35-3c")
@EARLY_CLOSE
@pytest.mark.parametrize(
    ("encoding", "body", "reason"),
    [
        ("br", b"{}", "Content-Encoding br"),
        ("gzip, gzip", b"{}", "Content-Encoding gzip, gzip"),
        ("gzip", b"not gzip at all", "gzip"),
        ("gzip", gzip.compress(b"{}")[:-6], "gzip"),
    ],
)
async def test_other_or_broken_encodings_are_refused(
    served: DocumentServer, encoding: str, body: bytes, reason: str
) -> None:
    served.body = body
    served.headers = {"content-encoding": encoding}
    assert reason in await refusal(fetcher(served), served.url)


@pytest.mark.threat("I35-3c")
def test_the_decoder_produces_at_most_one_byte_past_the_cap() -> None:
    bomb = gzip.compress(b"x" * (1024 * MAX_DOCUMENT_BYTES))
    body = CappedBody("gzip")
    chunks = iter([bomb[start : start + 4096] for start in range(0, len(bomb), 4096)])

    def feed_all() -> None:
        for chunk in chunks:
            body.feed(chunk)

    with pytest.raises(UnsafeClientError, match="larger than 64 KiB"):
        feed_all()
    assert body.size == MAX_DOCUMENT_BYTES + 1
    assert next(chunks, None) is not None  # refused long before the bomb's end


@pytest.mark.threat("I35-3d")
async def test_an_operator_named_ca_file_is_trusted_for_documents(
    served: DocumentServer, tmp_path: Path
) -> None:
    env = {"SEVDESK_HTTP_OAUTH_CA_FILE": str(tmp_path / "cert.pem")}
    answer = await authorize_page(tmp_path, served.url, env=env)
    assert answer.status_code == 200, answer.text
    assert "SDK Test Client" in answer.text
    assert served.fetches == ["/oauth/client.json"]


@pytest.mark.threat("I35-3d")
@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read the file"),
        (b"", "not a PEM file"),
        (b"\x30\x82\x01\x0a\x02\x82", "not a PEM file"),
        (b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "not a PEM file"),
    ],
)
def test_a_missing_or_malformed_ca_file_stops_the_start(
    tmp_path: Path, content: bytes | None, reason: str
) -> None:
    path = tmp_path / "ca.pem"
    if content is not None:
        path.write_bytes(content)
    env = {"SEVDESK_HTTP_STATE_DIR": str(tmp_path), "SEVDESK_HTTP_OAUTH_CA_FILE": str(path)}
    with pytest.raises(ConfigError, match=reason) as caught:
        load_oauth_settings(env)
    assert caught.value.variable == "SEVDESK_HTTP_OAUTH_CA_FILE"


@pytest.mark.threat("I35-3d")
def test_a_pem_ca_file_is_read_at_start(tmp_path: Path) -> None:
    cert, _ = certificate(tmp_path)
    env = {"SEVDESK_HTTP_STATE_DIR": str(tmp_path), "SEVDESK_HTTP_OAUTH_CA_FILE": str(cert)}
    assert load_oauth_settings(env).ca_pem == cert.read_text()
    assert load_oauth_settings({"SEVDESK_HTTP_STATE_DIR": str(tmp_path)}).ca_pem is None

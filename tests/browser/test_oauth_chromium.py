"""Issue 16: a real headless browser on the consent page, in the official SDK client's OAuth
flow: the page switched to German, the user's sevDesk token pasted, a tier chosen, Erlauben
clicked; the browser follows the redirect to the client's loopback callback; then tool calls."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio.to_thread
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from sevdesk_mcp.cli.oauth import OAuthSeams
from sevdesk_mcp.fake import DEMO_TOKEN
from tests.browser.cdp import CHROMIUM, Chromium
from tests.http.oauth_support import oauth_server
from tests.interop.oauth_sdk_support import MemoryStorage, document_server, provider

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="chromium is not installed (scripts/install_browser_test_deps.sh installs it)",
    ),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the SDK client runs on asyncio


@contextmanager
def callback_server() -> Iterator[tuple[str, list[str]]]:
    """:returns: the client's loopback redirect URI and the queries it received."""
    received: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if urlsplit(self.path).path == "/callback":  # not /favicon.ico
                received.append(urlsplit(self.path).query)
            body = b"signed in"
            self.send_response(200)
            self.send_header("content-type", "text/plain")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/callback", received
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def consent_in_browser(url: str, profile: Path, shot: Path | None) -> dict[str, str]:
    """Switch to German, paste the token, allow writing, click Erlauben; :returns: the page's
    texts seen on the way."""
    with Chromium(profile) as browser:
        browser.open(url)
        english = browser.wait_for_text("Connect sevDesk")
        browser.evaluate("document.querySelector('a[hreflang=de]').click()")
        german = browser.wait_for_text("sevDesk verbinden")
        if shot is not None:
            browser.screenshot(shot)
        token = json.dumps(DEMO_TOKEN)
        browser.evaluate(
            f"document.querySelector('#token').value = {token};"
            "document.querySelector('input[name=tier_write]').checked = true;"
            "document.querySelector('button[value=allow]').click()"
        )
        done = browser.wait_for_text("signed in")
    return {"english": english, "german": german, "done": done}


async def test_chromium_consents_in_german_and_the_sdk_calls_tools(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []
    with (
        callback_server() as (redirect_uri, received),
        document_server(tmp_path, redirect_uri) as documents,
    ):
        seams = OAuthSeams(verify=documents.trust)
        env = {"SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS": "1"}
        async with oauth_server(tmp_path / "state", env=env, seams=seams) as server:

            async def browse(url: str) -> str:
                texts = await anyio.to_thread.run_sync(
                    consent_in_browser, url, tmp_path / "profile", None
                )
                seen.append(texts)
                return f"{redirect_uri}?{received[-1]}"

            mcp_url = server.service.site.mcp_url
            auth = provider(
                mcp_url,
                MemoryStorage(),
                browse,
                client_metadata_url=documents.url,
                redirect_uri=redirect_uri,
            )
            async with (
                httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(60)) as http,
                Client(streamable_http_client(mcp_url, http_client=http)) as client,
            ):
                info = await client.call_tool("sevdesk_account_info", {})
                tools = await client.list_tools()
    query = parse_qs(received[-1])
    assert set(query) == {"code", "state", "iss"} and query["iss"] == [server.url]
    assert "SDK Test Client" in seen[0]["english"] and "127.0.0.1" in seen[0]["english"]
    assert "Was darf SDK Test Client?" in seen[0]["german"]
    assert "Holzwerk Sonnenberg GmbH" in info.content[0].text
    assert any(t.name == "sevdesk_create_contact" for t in tools.tools)

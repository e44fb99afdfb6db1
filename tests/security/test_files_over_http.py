"""Threat tests of issue 35, finding 10: files over HTTP, per configuration.

- (a) the demo books' export storage is reached in OAuth mode as over stdio, never the network;
- (b) every refusal says the true reason for the configuration at hand;
- (c) a tool whose file need the deployment cannot serve is not offered (not listed, and
  unknown when called);
- (d) bearer mode reads its sevDesk account once at start-up and names it in the audit.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from sevdesk_mcp.accounts.context import AccountContext
from sevdesk_mcp.cli import bearer as cli_bearer
from sevdesk_mcp.cli import oauth as cli_oauth
from sevdesk_mcp.cli.oauth import OAuthSeams, bind_oauth_service
from sevdesk_mcp.config import load_config
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.settings import load_http_settings
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.sevdesk.download import FILE_TRANSPORT
from sevdesk_mcp.tools.receipts.upload import BEARER_FILES, FILES_OFF, STDIO_FILES, no_transfer
from tests.http.helpers import HANG_GUARD_S, SECRET, fast, modern_body, modern_headers
from tests.http.oauth_support import oauth_env
from tests.http.process import http_env, http_server
from tests.http.web_support import grant, tool
from tests.wire import open_wire

pytestmark = pytest.mark.anyio
FILE_TOOLS = {  # every tool that needs a file to read or a place to deliver one
    "sevdesk_upload_receipt",
    "sevdesk_read_einvoice",
    "sevdesk_suggest_einvoice_receipt",
    "sevdesk_file_einvoice",
    "sevdesk_export_csv",
    "sevdesk_export_datev",
    "sevdesk_export_datev_enshrined",
}
UPLOAD = "sevdesk_request_upload"
ALL_TIERS = {"SEVDESK_ALLOW": "read,write,commit"}


class NoNetwork(httpx.AsyncBaseTransport):
    """Stands in for the network: a download that would leave the process fails here."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.asked.append(str(request.url.host))
        raise httpx.ConnectError("the network is not reachable from this test", request=request)


@asynccontextmanager
async def oauth_demo(tmp_path: Path, **env: str) -> AsyncIterator[httpx.AsyncClient]:
    """OAuth mode with the demo books as the command line wires it (``cli_oauth.oauth_wiring``),
    on 127.0.0.1; :yields: a browser-like client of the site."""
    full = oauth_env(tmp_path, **env)
    settings = load_http_settings(full)
    wiring = cli_oauth.oauth_wiring(load_config(full), settings, demo=True, shared=None)
    service = await bind_oauth_service(
        settings,
        wiring.config,
        identify=wiring.lookup,
        apps=wiring.apps,
        limits=fast(),
        access_log=AccessLog(sink=lambda line: None),
        seams=OAuthSeams(web=wiring.web),
    )
    url = service.site.public_url
    headers = {"origin": url, "sec-fetch-site": "same-origin"}
    stop = anyio.Event()
    async with (
        anyio.create_task_group() as tg,
        httpx.AsyncClient(
            base_url=url, timeout=HANG_GUARD_S, trust_env=False, headers=headers
        ) as client,
    ):
        tg.start_soon(service.run, stop)
        try:
            yield client
        finally:
            stop.set()


async def _listed(client: httpx.AsyncClient, access: str) -> set[str]:
    headers = {**modern_headers("tools/list"), "authorization": f"Bearer {access}"}
    answer = await client.post("/mcp", json=modern_body("tools/list"), headers=headers)
    assert answer.status_code == 200, answer.text
    return {t["name"] for t in answer.json()["result"]["tools"]}


@pytest.mark.threat("I35-10a")
async def test_oauth_mode_with_the_demo_books_runs_the_datev_export_from_their_storage(
    tmp_path: Path,
) -> None:
    network = NoNetwork()
    guard = FILE_TRANSPORT.set(network)  # were the storage not wired, the download lands here
    try:
        async with oauth_demo(tmp_path / "state") as browser:
            access = await grant(browser)
            result = await tool(browser, access, "sevdesk_export_datev", {"period": "2026-10"})
    finally:
        FILE_TRANSPORT.reset(guard)
    assert network.asked == []
    assert not result.get("isError"), result
    saved = result["structuredContent"]
    assert saved["file_name"].endswith(".zip") and saved["size_bytes"] > 0
    assert saved["download_page"].startswith("http://127.0.0.1:")


@pytest.mark.threat("I35-10b")
def test_each_configuration_gets_its_own_true_reason() -> None:
    config = load_config({})
    stdio = no_transfer(AccountContext(config=config))
    bearer = no_transfer(AccountContext(config=config, principal="bearer"))
    off = no_transfer(AccountContext(config=config, principal="oauth:84210:g_1"))
    assert (stdio, bearer, off) == (STDIO_FILES, BEARER_FILES, FILES_OFF)
    assert "SEVDESK_FILE_DIRS" in stdio and "SEVDESK_HTTP_FILES" not in stdio
    assert "bearer mode" in bearer and "SEVDESK_HTTP_AUTH=oauth" in bearer
    assert "SEVDESK_HTTP_FILES" not in bearer  # setting it changes nothing in bearer mode
    assert "SEVDESK_HTTP_FILES=off" in off and "SEVDESK_HTTP_FILES=on" not in off


@pytest.mark.threat("I35-10b")
def test_bearer_mode_says_at_start_up_that_sevdesk_http_files_does_nothing_there(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="sevdesk_mcp"):
        cli_bearer.note_bearer_files({})
        cli_bearer.note_bearer_files({"SEVDESK_HTTP_FILES": "off"})
        assert caplog.messages == []
        cli_bearer.note_bearer_files({"SEVDESK_HTTP_FILES": "on"})
    assert len(caplog.messages) == 1
    assert "no effect in bearer mode" in caplog.messages[0]
    assert "SEVDESK_HTTP_AUTH=oauth" in caplog.messages[0]


@pytest.mark.threat("I35-10c")
async def test_stdio_does_not_offer_the_upload_request_and_calling_it_is_an_unknown_tool() -> None:
    config = load_config(ALL_TIERS)
    app = ServerFactory(config).build(AccountContext(config=config))
    async with open_wire(app) as wire:
        names = {t["name"] for t in (await wire.modern("tools/list"))["result"]["tools"]}
        called = await wire.modern("tools/call", {"name": UPLOAD, "arguments": {}})
    assert UPLOAD not in names and names >= FILE_TOOLS  # local folders serve the file tools
    assert called["error"]["code"] == -32602
    assert called["error"]["message"] == (
        f"Unknown tool: {UPLOAD}; {UPLOAD} is not offered here: it needs files, which this "
        "deployment cannot reach. Nothing was done"
    )


@pytest.mark.threat("I35-10c")
async def test_oauth_mode_offers_the_file_tools_only_with_file_transfer_on(
    tmp_path: Path,
) -> None:
    async with oauth_demo(tmp_path / "on") as browser:
        on = await _listed(browser, await grant(browser))
    async with oauth_demo(tmp_path / "off", SEVDESK_HTTP_FILES="off") as browser:
        access = await grant(browser)
        off = await _listed(browser, access)
        called = await _call(browser, access, UPLOAD)
    assert UPLOAD in on and on >= FILE_TOOLS
    assert not (FILE_TOOLS | {UPLOAD}) & off and "sevdesk_document_pdf" in off
    assert called["error"]["message"].startswith(f"Unknown tool: {UPLOAD}; ")
    assert "it needs files, which this deployment cannot reach" in called["error"]["message"]


async def _call(client: httpx.AsyncClient, access: str, name: str) -> dict[str, Any]:
    params = {"name": name, "arguments": {}}
    headers = {**modern_headers("tools/call", name), "authorization": f"Bearer {access}"}
    answer = await client.post("/mcp", json=modern_body("tools/call", params), headers=headers)
    body: dict[str, Any] = answer.json()
    return body


def _bearer_call(url: str) -> Callable[[str, dict[str, Any] | None], Any]:
    async def call(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        name = (params or {}).get("name")
        headers = {**modern_headers(method, name), "authorization": f"Bearer {SECRET}"}
        async with httpx.AsyncClient(trust_env=False, timeout=HANG_GUARD_S) as http:
            answer = await http.post(url, json=modern_body(method, params), headers=headers)
        body: dict[str, Any] = answer.json()
        return body

    return call


@pytest.mark.threat("I35-10c")
@pytest.mark.threat("I35-10d")
async def test_bearer_mode_offers_no_file_tools_and_audits_who_acted(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    env = http_env(SEVDESK_ALLOW="write", SEVDESK_AUDIT_LOG=str(audit), SEVDESK_HTTP_FILES="on")
    async with http_server("--demo", env=env) as server:
        call = _bearer_call(server.url)
        listed = {t["name"] for t in (await call("tools/list", None))["result"]["tools"]}
        unknown = await call("tools/call", {"name": UPLOAD, "arguments": {}})
        contact = {"kind": "organisation", "category": "customer", "name": "Audit GmbH"}
        written = await call("tools/call", {"name": "sevdesk_create_contact", "arguments": contact})
    stderr = "\n".join(server.stderr)
    assert "SEVDESK_HTTP_FILES=on has no effect in bearer mode" in stderr
    assert "sevdesk_create_contact" in listed and not (FILE_TOOLS | {UPLOAD}) & listed
    assert unknown["error"]["message"].startswith(f"Unknown tool: {UPLOAD}; ")
    assert "it needs files, which this deployment cannot reach" in unknown["error"]["message"]
    assert not written["result"].get("isError"), written
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    executing = next(line for line in lines if line["event"] == "executing")
    assert executing["principal"] == "bearer"  # the binding principal is unchanged
    assert executing["actor"] == {
        "auth": "bearer",
        "account": "84210",
        "name": "Holzwerk Sonnenberg GmbH",
    }
    assert all(line["actor"]["account"] == "84210" for line in lines)

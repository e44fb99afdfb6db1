"""Browser-mode apps on the demo books, and raw requests to the local approval page."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from sevdesk_mcp.cli import approval_pages
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import FakeSevdesk, build_demo
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.approval_local import Pages
from sevdesk_mcp.safety.approvals import MemoryApprovalStore
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.runtime import SafetyRuntime
from sevdesk_mcp.server import ServerFactory
from sevdesk_mcp.tools import definitions
from tests.clock import Clock
from tests.demo_account import DEMO_URL
from tests.http.helpers import HANG_GUARD_S
from tests.write_fixtures import WRITE_FIXTURES
from tests.writes.helpers import ALL, DRAFT_ID, write_app

FINALIZE = "sevdesk_test_finalize_invoice"
LINK = re.compile(r"http://127\.0\.0\.1:\d+/a/[A-Za-z0-9_-]{43}")
REFERENCE = re.compile(r"[2-9A-HJKMNP-Z]{2}-[2-9A-HJKMNP-Z]{3}")


@dataclass
class Browser:
    """An app in browser mode, its fake sevDesk, its safety runtime and what it opened."""

    fake: FakeSevdesk
    app: McpApp
    runtime: SafetyRuntime
    clock: Clock
    opened: list[str] = field(default_factory=list)


def browser_app(
    env: dict[str, str] | None = None,
    *,
    opener_works: bool = True,
    pages: Callable[[], Pages] = approval_pages,
) -> Browser:
    env = {"SEVDESK_CONFIRM": "browser", "SEVDESK_CONFIRM_OPEN": "0", **(env or {})}
    config = load_config({**ALL, **env, "SEVDESK_API_URL": DEMO_URL})
    factory = ServerFactory(config, catalog_tools=(*definitions.ALL_TOOLS, *WRITE_FIXTURES))
    clock = Clock()
    opened: list[str] = []

    def opener(url: str) -> bool:
        opened.append(url)
        return opener_works

    factory.safety = SafetyRuntime(
        AuditLog(config.audit_log), approvals=MemoryApprovalStore(clock), pages=pages, opener=opener
    )
    fake = build_demo()
    return Browser(fake, write_app(fake, env, factory), factory.safety, clock, opened)


async def call(wire: Any, invoice_id: int = DRAFT_ID, name: str = FINALIZE) -> dict[str, Any]:
    """:returns: the ``result`` of a call of the finalize fixture, from a client that cannot
    elicit."""
    params = {"name": name, "arguments": {"invoice_id": invoice_id}}
    answer = await wire.modern("tools/call", params, caps={})
    result: dict[str, Any] = answer["result"]
    return result


def last_link(caplog: pytest.LogCaptureFixture) -> str:
    """:returns: the page link the server last wrote to its log."""
    links = [
        m[0]
        for r in caplog.records
        if r.name == "sevdesk_mcp.approvals" and (m := LINK.search(r.getMessage()))
    ]
    assert links, "no approval link was logged"
    return links[-1]


@dataclass(frozen=True)
class Visit:
    """A GET of the page: the answer and the cookie and CSRF token it handed out."""

    link: str
    response: httpx.Response
    cookie: str
    csrf: str

    @property
    def origin(self) -> str:
        parts = urlsplit(self.link)
        return f"{parts.scheme}://{parts.netloc}"


async def request(method: str, url: str, **kwargs: Any) -> httpx.Response:
    """One request on a fresh client (no cookie jar carried over)."""
    async with httpx.AsyncClient(timeout=HANG_GUARD_S) as client:
        return await client.request(method, url, **kwargs)


async def visit(link: str) -> Visit:
    response = await request("GET", link)
    assert response.status_code == 200, response.text
    cookie = response.headers["set-cookie"].split(";")[0]
    match = re.search(r'name="csrf" value="([^"]+)"', response.text)
    assert match is not None
    return Visit(link, response, cookie, match[1])


def good_headers(page: Visit) -> dict[str, str]:
    return {
        "Origin": page.origin,
        "Sec-Fetch-Site": "same-origin",
        "Cookie": page.cookie,
        "Content-Type": "application/x-www-form-urlencoded",
    }


async def post(
    page: Visit,
    decision: str = "approve",
    *,
    csrf: str | None = None,
    headers: dict[str, str | None] | None = None,
) -> httpx.Response:
    """POST a decision with every check passing, except what ``csrf`` and ``headers`` change
    (a header set to ``None`` is left out)."""
    merged: dict[str, str | None] = {**good_headers(page), **(headers or {})}
    sent = {k: v for k, v in merged.items() if v is not None}
    fields = {"csrf": page.csrf if csrf is None else csrf, "decision": decision}
    body = "&".join(f"{k}={v}" for k, v in fields.items() if v != "-")
    return await request("POST", page.link, content=body.encode(), headers=sent)

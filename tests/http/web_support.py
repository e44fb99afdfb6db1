"""OAuth mode with the pages of issue 23 (``http.web``): the inbox (SEVDESK_CONFIRM=browser)
and file transfer, two accounts on fake sevDesks, and browser-like helpers over httpx."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx

from sevdesk_mcp.accounts.identity import IdentityLookup
from sevdesk_mcp.accounts.resolver import AccountResolver
from sevdesk_mcp.cli.oauth import OAuthSeams, bind_oauth_service
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import DEMO_TOKEN, build_demo
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.oauth.service import OAuthService
from sevdesk_mcp.http.settings import load_http_settings
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.safety.transfers import Limits
from sevdesk_mcp.server import Reach, ServerFactory
from tests.http.helpers import HANG_GUARD_S, fast
from tests.http.oauth_support import (
    TOKEN_B,
    TOKEN_COLLEAGUE,
    Accounts,
    call_tool,
    oauth_env,
    second_account,
    tokens,
)

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
_CSRF = re.compile(r'name="csrf" value="([^"]*)"')
_ID = re.compile(r'name="id" value="([^"]*)"')


@dataclass
class WebRunning:
    service: OAuthService
    hub: WebHub

    @property
    def url(self) -> str:
        return self.service.site.public_url


@asynccontextmanager
async def web_server(
    state_dir: Path, *, limits: Limits | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[WebRunning]:
    """Serve OAuth mode with the inbox and file pages until the block ends."""
    full = oauth_env(state_dir, SEVDESK_CONFIRM="browser", **(env or {}))
    settings = load_http_settings(full)
    config = load_config(full)
    hub = WebHub(files=settings.files, inbox=True, limits=limits)
    reach: Reach = "none" if hub.transfers is None else "transfer"  # as the command line does
    factory = ServerFactory(config, pages=hub.pages, files=reach)
    demo = build_demo()
    demo.add_user(TOKEN_COLLEAGUE)  # a colleague: another user of the demo company
    accounts = Accounts(demo, second_account())
    lookup = IdentityLookup(config.api_url, transport=accounts)
    resolver = AccountResolver(config, lookup)

    async def apps(access: Any) -> Callable[[], McpApp]:
        context = await resolver.context(access)
        return lambda: factory.build(context)

    service = await bind_oauth_service(
        settings,
        config,
        identify=lookup,
        apps=apps,
        limits=fast(),
        access_log=AccessLog(sink=lambda line: None),
        seams=OAuthSeams(web=hub),
    )
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(service.run, stop)
        try:
            yield WebRunning(service, hub)
        finally:
            stop.set()


@asynccontextmanager
async def browser_like(server: WebRunning) -> AsyncIterator[httpx.AsyncClient]:
    """A client that sends what a browser sends on this site's own forms (``Origin``)."""
    headers = {"origin": server.url, "sec-fetch-site": "same-origin"}
    async with httpx.AsyncClient(
        base_url=server.url, timeout=HANG_GUARD_S, trust_env=False, headers=headers
    ) as client:
        yield client


async def sign_in(client: httpx.AsyncClient, token: str = DEMO_TOKEN) -> httpx.Response:
    """Sign in on ``/signin``; :returns: the answer to the POST."""
    page = await client.get("/signin")
    assert page.status_code == 200, page.text
    csrf = csrf_of(page.text)
    return await client.post(
        "/signin", data={"csrf": csrf, "next": "/approvals", "sevdesk_token": token}
    )


def csrf_of(page: str) -> str:
    found = _CSRF.findall(page)
    assert found, page
    return html.unescape(found[0])


def approval_ids(page: str) -> list[str]:
    return [html.unescape(i) for i in dict.fromkeys(_ID.findall(page))]


async def grant(client: httpx.AsyncClient, token: str = DEMO_TOKEN) -> str:
    """:returns: an access token of a new grant of the account of ``token`` (write, commit)."""
    _, answer = await tokens(client, token=token, tiers=("write", "commit"))
    return str(answer["access_token"])


async def tool(
    client: httpx.AsyncClient, access: str, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    """:returns: the ``result`` of a tool call."""
    answer = await call_tool(client, access, name, arguments)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


__all__ = ["DEMO_TOKEN", "PDF", "PNG", "TOKEN_B", "TOKEN_COLLEAGUE"]

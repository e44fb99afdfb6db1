"""OAuth mode on 127.0.0.1 for tests: two accounts on fake sevDesks, and a client without a
browser (the consent form posted with httpx)."""

from __future__ import annotations

import base64
import hashlib
import html
import re
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx

from sevdesk_mcp.accounts.identity import IdentityLookup
from sevdesk_mcp.accounts.resolver import AccountResolver
from sevdesk_mcp.cli.oauth import OAuthSeams, bind_oauth_service
from sevdesk_mcp.config import load_config
from sevdesk_mcp.fake import DEMO_TOKEN, FakeSevdesk, build_demo
from sevdesk_mcp.fake.models import SevClient
from sevdesk_mcp.http.log import AccessLog
from sevdesk_mcp.http.oauth.service import OAuthService
from sevdesk_mcp.http.settings import load_http_settings
from sevdesk_mcp.mcp.app import McpApp
from sevdesk_mcp.server import ServerFactory
from tests.demo_account import DEMO_URL
from tests.http.helpers import HANG_GUARD_S, SECRET, fast, modern_body, modern_headers

TOKEN_B = "b20123456789abcdef0123456789abcd"  # a test token of sevDesk's shape
TOKEN_COLLEAGUE = "c011ea9e0123456789abcdef01234567"  # another user of account A (the demo)
REDIRECT = "http://127.0.0.1:9/callback"
_HIDDEN = re.compile(r'<input type="hidden" name="(request|csrf)" value="([^"]*)">')


def second_account() -> FakeSevdesk:
    """:returns: demo books under another token and account id (2, "Zweite GmbH")."""
    fake = build_demo()
    fake.token = TOKEN_B
    fake.store.client = SevClient(id=2, name="Zweite GmbH")
    return fake


class Accounts(httpx.AsyncBaseTransport):
    """Routes each request to the fake sevDesk whose token it carries (unknown: 401)."""

    def __init__(self, *fakes: FakeSevdesk) -> None:
        self.fakes = {t: fake for fake in fakes for t in (fake.token, *fake.user_tokens)}
        self._transports = {t: fake.transport() for t, fake in self.fakes.items()}
        self._default = next(iter(self._transports.values()))
        self.authorizations: list[str] = []  # every Authorization header sent to sevDesk

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        token = request.headers.get("authorization", "")
        self.authorizations.append(token)
        transport = self._transports.get(token, self._default)
        return await transport.handle_async_request(request)


@dataclass
class OAuthRunning:
    """A running OAuth-mode server and what a test can observe of it."""

    service: OAuthService
    accounts: Accounts
    resolver: AccountResolver
    lines: list[str] = field(default_factory=list)
    built: list[McpApp] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.service.site.public_url

    @property
    def fake_a(self) -> FakeSevdesk:
        return self.accounts.fakes[DEMO_TOKEN]

    @property
    def fake_b(self) -> FakeSevdesk:
        return self.accounts.fakes[TOKEN_B]


def oauth_env(state_dir: Path, **extra: str) -> dict[str, str]:
    return {
        "SEVDESK_HTTP_AUTH": "oauth",
        "SEVDESK_HTTP_SECRET": SECRET,
        "SEVDESK_HTTP_PORT": "0",
        "SEVDESK_HTTP_STATE_DIR": str(state_dir),
        "SEVDESK_ALLOW": "write,commit",
        "SEVDESK_API_URL": DEMO_URL,
        **extra,
    }


@asynccontextmanager
async def oauth_server(
    state_dir: Path,
    *,
    env: dict[str, str] | None = None,
    seams: OAuthSeams | None = None,
    more: tuple[FakeSevdesk, ...] = (),
) -> AsyncIterator[OAuthRunning]:
    """Serve OAuth mode with accounts A (the demo token) and B until the block ends."""
    full = oauth_env(state_dir, **(env or {}))
    settings = load_http_settings(full)
    config = load_config(full)
    factory = ServerFactory(config)
    accounts = Accounts(build_demo(), second_account(), *more)
    lines: list[str] = []
    lookup = IdentityLookup(config.api_url, transport=accounts)
    resolver = AccountResolver(config, lookup)
    running = OAuthRunning(None, accounts, resolver, lines)  # type: ignore[arg-type]

    async def apps(access: Any) -> Callable[[], McpApp]:
        context = await resolver.context(access)

        def build() -> McpApp:
            app = factory.build(context)
            running.built.append(app)
            return app

        return build

    running.service = await bind_oauth_service(
        settings,
        config,
        identify=lookup,
        apps=apps,
        limits=fast(),
        access_log=AccessLog(sink=lines.append),
        seams=seams,
    )
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(running.service.run, stop)
        try:
            yield running
        finally:
            stop.set()


def pkce() -> tuple[str, str]:
    """:returns: a verifier and its S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@asynccontextmanager
async def browserless(server: OAuthRunning) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        base_url=server.url, timeout=HANG_GUARD_S, trust_env=False
    ) as client:
        yield client


async def register(client: httpx.AsyncClient, redirect: str = REDIRECT, **extra: Any) -> str:
    """:returns: the client_id of a new registration."""
    metadata = {"redirect_uris": [redirect], "client_name": "Test Client", **extra}
    answer = await client.post("/register", json=metadata)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["client_id"])


def authorize_query(client_id: str, challenge: str, **extra: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "st-1",
        "scope": "sevdesk:read sevdesk:write",
        **extra,
    }


def form_fields(page: str) -> dict[str, str]:
    """:returns: the consent form's hidden ``request`` and ``csrf``."""
    return {name: html.unescape(value) for name, value in _HIDDEN.findall(page)}


async def consent(
    client: httpx.AsyncClient,
    query: dict[str, str],
    *,
    token: str = DEMO_TOKEN,
    decision: str = "allow",
    tiers: tuple[str, ...] = ("write",),
) -> httpx.Response:
    """Open the consent page and post the decision; :returns: the answer to the POST."""
    page = await client.get(f"/authorize?{urlencode(query)}")
    assert page.status_code == 200, page.text
    form = {**form_fields(page.text), "sevdesk_token": token, "decision": decision}
    form.update({f"tier_{t}": "on" for t in tiers})
    return await client.post("/authorize", data=form)


def redirect_params(answer: httpx.Response) -> dict[str, str]:
    """:returns: the query parameters of a 303's ``Location`` (each once)."""
    assert answer.status_code == 303, answer.text
    query = parse_qs(urlsplit(answer.headers["location"]).query, keep_blank_values=True)
    assert all(len(v) == 1 for v in query.values())
    return {k: v[0] for k, v in query.items()}


async def code_for(client: httpx.AsyncClient, client_id: str, **kwargs: Any) -> tuple[str, str]:
    """:returns: a fresh code and its verifier."""
    verifier, challenge = pkce()
    params = redirect_params(await consent(client, authorize_query(client_id, challenge), **kwargs))
    return params["code"], verifier


async def exchange(
    client: httpx.AsyncClient, client_id: str, code: str, verifier: str, **extra: str
) -> httpx.Response:
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        **extra,
    }
    return await client.post("/token", data=form)


async def refresh(
    client: httpx.AsyncClient, client_id: str, refresh_token: str, **extra: str
) -> httpx.Response:
    form = {
        "grant_type": "refresh_token",
        "refresh_token": refresh_token,
        "client_id": client_id,
        **extra,
    }
    return await client.post("/token", data=form)


async def tokens(client: httpx.AsyncClient, **kwargs: Any) -> tuple[str, dict[str, Any]]:
    """Register a client and run the whole flow; :returns: the client_id and token answer."""
    client_id = await register(client)
    code, verifier = await code_for(client, client_id, **kwargs)
    answer = await exchange(client, client_id, code, verifier)
    assert answer.status_code == 200, answer.text
    return client_id, answer.json()


async def call_tool(
    client: httpx.AsyncClient, access_token: str, name: str, arguments: dict[str, Any]
) -> httpx.Response:
    params = {"name": name, "arguments": arguments}
    headers = {**modern_headers("tools/call", name), "authorization": f"Bearer {access_token}"}
    return await client.post("/mcp", json=modern_body("tools/call", params), headers=headers)


Check = Callable[[httpx.Response], None]

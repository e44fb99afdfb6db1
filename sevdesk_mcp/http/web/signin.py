"""``/signin`` and ``/signout``: a browser session from the user's sevDesk API token.

``GET /signin`` sets a short sign-in cookie (``SameSite=Strict``) whose MAC is the form's CSRF
token. ``POST /signin`` is checked in order: a same-origin POST (403), the cookie and its CSRF
token (403), :data:`~sevdesk_mcp.http.web.attempts.SIGNIN_ATTEMPTS` tries per client address in five
minutes (429), then the token is registered with the redactor and checked with
``GET /SevClient``; a refusal shows the form again with the reason. Success starts a session
of the person holding that token (its keyed fingerprint, ``http.web.persons``: the inbox
then shows that person's approvals and files only) and goes on to ``next`` (one of this
site's pages only). ``POST /signout`` (same origin, the session's CSRF token) ends it.
"""

from __future__ import annotations

import hmac
import re
import secrets
from typing import Final
from urllib.parse import parse_qs

from sevdesk_mcp.errors import AuthenticationError, UpstreamError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.oauth.consent import BAD_TOKEN, TOKEN_REFUSED, UNREACHABLE
from sevdesk_mcp.http.oauth.consent_page import Lang
from sevdesk_mcp.http.oauth.core import Identity
from sevdesk_mcp.http.web.guard import NEXT, form, lang_of, refuse, same_origin
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.http.web.render import document, e, see_other, send_html
from sevdesk_mcp.http.web.sessions import cookie
from sevdesk_mcp.http.web.text import TEXT
from sevdesk_mcp.safety.redact import REDACTOR, Secret

SIGNIN_COOKIE: Final = "sevdesk_signin"
SIGNIN_COOKIE_TTL_S: Final = 1800
_TOKEN: Final = re.compile(r"[0-9A-Fa-f]{32}")  # sevDesk: 32 hex digits


async def signin_get(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``GET /signin``: the form, with a fresh sign-in cookie."""
    lang = lang_of(exchange)
    raw = parse_qs(exchange.request.query).get("next", ["/approvals"])
    next_path = raw[0] if len(raw) == 1 and NEXT.fullmatch(raw[0]) else "/approvals"
    nonce = secrets.token_urlsafe(32)
    await _form_page(hub, exchange, lang, nonce, next_path, None, 200)


async def signin_post(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``POST /signin`` (see the module docstring)."""
    lang = lang_of(exchange)
    fields = await form(exchange)
    nonce = cookie(exchange.request.headers, SIGNIN_COOKIE)
    if (
        fields is None
        or not same_origin(exchange, hub.site)
        or nonce is None
        or not hmac.compare_digest(hub.mac(nonce).encode(), fields.get("csrf", "").encode())
    ):
        await refuse(exchange, lang)
        return
    next_path = fields.get("next", "")
    next_path = next_path if NEXT.fullmatch(next_path) else "/approvals"
    if not await hub.attempts.allow(exchange.client):
        problem = TEXT[lang]["signin_slow"]
        await _form_page(hub, exchange, lang, nonce, next_path, problem, 429)
        return
    token = fields.get("sevdesk_token", "").strip()
    identity, problem = await _identify(hub, token, lang)
    if identity is None:
        await _form_page(hub, exchange, lang, nonce, next_path, problem, 400)
        return
    clear = f"{SIGNIN_COOKIE}=; {hub.sessions.attributes(0)}"
    session = hub.start_session(identity, Secret(token))  # the person of the token checked
    headers = (("set-cookie", session), ("set-cookie", clear))
    await see_other(exchange, next_path, headers)


async def signout_post(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``POST /signout``: end the session (same origin, its CSRF token)."""
    lang = lang_of(exchange)
    fields = await form(exchange)
    session = await hub.sessions.of(exchange.request.headers)
    if session is None:
        await see_other(exchange, "/signin")
        return
    if (
        fields is None
        or not same_origin(exchange, hub.site)
        or not session.csrf_ok(fields.get("csrf"))
    ):
        await refuse(exchange, lang, session)
        return
    await hub.sessions.end(session)
    await see_other(exchange, "/signin", (("set-cookie", hub.sessions.clear_cookie()),))


async def _identify(hub: WebHub, token: str, lang: Lang) -> tuple[Identity | None, str]:
    if not _TOKEN.fullmatch(token):
        return None, BAD_TOKEN[lang]
    # only a token of sevDesk's own shape is a secret to mask (registering whatever a visitor
    # types would let anyone mask any word of every answer); before anything can fail with it
    REDACTOR.add(token)
    try:
        return await hub.identify(Secret(token)), ""
    except AuthenticationError:
        return None, TOKEN_REFUSED[lang]
    except UpstreamError:
        return None, UNREACHABLE[lang]


async def _form_page(  # noqa: PLR0913, PLR0917 - the page's parts
    hub: WebHub,
    exchange: Exchange,
    lang: Lang,
    nonce: str,
    next_path: str,
    problem: str | None,
    status: int,
) -> None:
    t = TEXT[lang]
    error = f'<p class="error" role="alert">{e(problem)}</p>' if problem else ""
    content = (
        f'<h1>{t["signin_title"]}</h1><p class="lead">{t["signin_lead"]}</p>{error}'
        '<form class="card" method="post" action="/signin">'
        f'<input type="hidden" name="csrf" value="{e(hub.mac(nonce))}">'
        f'<input type="hidden" name="next" value="{e(next_path)}">'
        f'<label for="token">{t["token"]}</label>'
        '<input type="password" id="token" name="sevdesk_token" required autocomplete="off" '
        'spellcheck="false" aria-describedby="token-help">'
        f'<p class="help" id="token-help">{t["token_help"]}</p>'
        f'<div class="actions"><button type="submit" class="primary">{t["signin_button"]}'
        "</button></div></form>"
    )
    attributes = hub.sessions.attributes(SIGNIN_COOKIE_TTL_S)
    headers = (("set-cookie", f"{SIGNIN_COOKIE}={nonce}; {attributes}"),)
    await send_html(exchange, status, document(lang, t["signin_title"], content), headers)

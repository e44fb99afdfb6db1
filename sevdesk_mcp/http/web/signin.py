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

import secrets
from typing import Final
from urllib.parse import quote

from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.kit.forms import cookie, cookie_attributes, posted_form
from sevdesk_mcp.http.kit.guard import tokens_match
from sevdesk_mcp.http.kit.lang import LANG_FIELD, Lang, with_lang
from sevdesk_mcp.http.kit.page import e, see_other, send_html
from sevdesk_mcp.http.kit.token import FIELD, checked_token, token_field
from sevdesk_mcp.http.web.guard import NEXT, here, page_lang, query_param, refuse, same_origin
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.http.web.render import document
from sevdesk_mcp.http.web.text import TEXT
from sevdesk_mcp.safety.redact import Secret

SIGNIN_COOKIE: Final = "sevdesk_signin"
SIGNIN_COOKIE_TTL_S: Final = 1800


async def signin_get(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``GET /signin``: the form, with a fresh sign-in cookie."""
    lang = page_lang(exchange)
    asked = query_param(exchange, "next") or ""
    next_path = asked if NEXT.fullmatch(asked) else "/approvals"
    nonce = secrets.token_urlsafe(32)
    await _form_page(hub, exchange, lang, nonce, next_path, None, 200)


async def signin_post(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``POST /signin`` (see the module docstring)."""
    fields = await posted_form(exchange)
    lang = page_lang(exchange, fields)
    nonce = cookie(exchange.request.headers.get_all("cookie"), SIGNIN_COOKIE)
    if (
        fields is None
        or not same_origin(exchange, hub.site)
        or nonce is None
        or not tokens_match(hub.mac(nonce), fields.get("csrf"))
    ):
        await refuse(exchange, lang)
        return
    next_path = fields.get("next", "")
    next_path = with_lang(next_path if NEXT.fullmatch(next_path) else "/approvals", lang)
    if not await hub.attempts.allow(exchange.client):
        problem = TEXT[lang]["signin_slow"]
        await _form_page(hub, exchange, lang, nonce, next_path, problem, 429)
        return
    token = fields.get(FIELD, "").strip()
    identity, problem = await checked_token(hub.identify, token, lang)
    if identity is None:
        await _form_page(hub, exchange, lang, nonce, next_path, problem, 400)
        return
    clear = f"{SIGNIN_COOKIE}=; {cookie_attributes(0, https=hub.sessions.https)}"
    session = hub.start_session(identity, Secret(token))  # the person of the token checked
    headers = (("set-cookie", session), ("set-cookie", clear))
    await see_other(exchange, next_path, headers)


async def signout_post(hub: WebHub, exchange: Exchange) -> None:
    """Serve ``POST /signout``: end the session (same origin, its CSRF token)."""
    fields = await posted_form(exchange)
    lang = page_lang(exchange, fields)
    signin = with_lang("/signin", lang)
    session = await hub.sessions.of(exchange.request.headers)
    if session is None:
        await see_other(exchange, signin)
        return
    if (
        fields is None
        or not same_origin(exchange, hub.site)
        or not tokens_match(session.csrf, fields.get("csrf"))
    ):
        await refuse(exchange, lang, session)
        return
    await hub.sessions.end(session)
    await see_other(exchange, signin, (("set-cookie", hub.sessions.clear_cookie()),))


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
        f'<input type="hidden" name="{LANG_FIELD}" value="{lang}">'
        f"{token_field(t['token'], t['token_help'])}"
        f'<div class="actions"><button type="submit" class="primary">{t["signin_button"]}'
        "</button></div></form>"
    )
    attributes = cookie_attributes(SIGNIN_COOKIE_TTL_S, https=hub.sessions.https)
    headers = (("set-cookie", f"{SIGNIN_COOKIE}={nonce}; {attributes}"),)
    page = document(lang, t["signin_title"], content, here=_signin_here(exchange, next_path))
    await send_html(exchange, status, page, headers)


def _signin_here(exchange: Exchange, next_path: str) -> str:
    """:returns: the sign-in page's own address (the language switch links to it; after a POST
    the form's ``next`` is kept)."""
    if exchange.request.method == "GET":
        return here(exchange)
    return f"/signin?next={quote(next_path, safe='')}"

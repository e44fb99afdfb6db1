"""What every page request is checked for: the language, a same-origin POST, the session, and
a form read strictly (each field once, UTF-8, bounded)."""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import quote

from sevdesk_mcp.errors import OAuthError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.oauth.authorize import pick_lang
from sevdesk_mcp.http.oauth.consent_page import Lang
from sevdesk_mcp.http.oauth.forms import parse_params, read_form
from sevdesk_mcp.http.settings import Site, normalize_origin
from sevdesk_mcp.http.web.render import document, e, message_page, see_other, send_html
from sevdesk_mcp.http.web.sessions import Session, SessionStore
from sevdesk_mcp.http.web.text import TEXT

MAX_FORM_BYTES: Final = 8 * 1024
ID: Final = re.compile(r"[A-Za-z0-9_-]{16,64}")
NEXT: Final = re.compile(r"/approvals|/(upload|download)\?id=[A-Za-z0-9_-]{16,64}")


def lang_of(exchange: Exchange) -> Lang:
    """:returns: ``de`` or ``en`` from the browser's ``Accept-Language``."""
    return pick_lang(None, exchange.request.headers.get("accept-language"))


def same_origin(exchange: Exchange, site: Site) -> bool:
    """:returns: whether a POST comes from this site's own page: ``Origin`` is the public
    origin (never ``null``), or absent with ``Sec-Fetch-Site: same-origin``; a
    ``Sec-Fetch-Site`` other than ``same-origin`` is refused."""
    headers = exchange.request.headers
    origins = headers.get_all("origin")
    fetch_site = headers.get_all("sec-fetch-site")
    if len(origins) > 1 or len(fetch_site) > 1:
        return False
    if fetch_site and fetch_site[0] != "same-origin":
        return False
    if not origins:
        return bool(fetch_site)
    return normalize_origin(origins[0]) == site.public_url


def query_id(exchange: Exchange) -> str | None:
    """:returns: the ``id`` of the query if it is the only parameter and well formed."""
    try:
        params = parse_params(exchange.request.query)
    except OAuthError:
        return None
    found = params.get("id", "")
    return found if set(params) == {"id"} and ID.fullmatch(found) else None


async def form(exchange: Exchange) -> dict[str, str] | None:
    """:returns: the POST's form, or ``None`` if it is not a strict, bounded form."""
    try:
        return await read_form(exchange, MAX_FORM_BYTES)
    except OAuthError:
        return None


async def refuse(exchange: Exchange, lang: Lang, session: Session | None = None) -> None:
    """Answer 403: the request did not come from this site's pages (CSRF, Origin)."""
    t = TEXT[lang]
    await send_html(exchange, 403, message_page(lang, t["error_title"], t["refused"], session))


async def require_session(exchange: Exchange, sessions: SessionStore, lang: Lang) -> Session | None:
    """:returns: the request's session; without one, answers and returns ``None``: a page
    that continues in the same tab after a navigation from another site (whose request carries
    no ``SameSite=Strict`` cookie), otherwise the sign-in page's address."""
    session = await sessions.of(exchange.request.headers)
    if session is not None:
        return session
    request = exchange.request
    target = f"{request.path}?{request.query}" if request.query else request.path
    if exchange.request.method == "GET" and request.headers.get("sec-fetch-site") == "cross-site":
        t = TEXT[lang]
        content = (
            f"<h1>{t['continue_title']}</h1><p>{t['continue_lead']}</p>"
            f'<p><a class="button primary" href="{e(target)}">{t["continue"]}</a></p>'
        )
        await send_html(exchange, 200, document(lang, t["continue_title"], content))
        return None
    next_path = target if NEXT.fullmatch(target) else "/approvals"
    await see_other(exchange, f"/signin?next={quote(next_path, safe='')}")
    return None

"""What every page request of the web pages is checked for, on the page kit: the language (the
query's or form's ``lang``, else ``Accept-Language``, else the configured default), a
same-origin POST to this site, the session, and the ``id`` of a query."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final
from urllib.parse import quote

from sevdesk_mcp.errors import FormError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.kit import guard
from sevdesk_mcp.http.kit.forms import params
from sevdesk_mcp.http.kit.lang import LANG_FIELD, Lang, lang_of, with_lang
from sevdesk_mcp.http.kit.page import e, see_other, send_html
from sevdesk_mcp.http.settings import Site
from sevdesk_mcp.http.web.render import document, message_page
from sevdesk_mcp.http.web.sessions import Session, SessionStore
from sevdesk_mcp.http.web.text import TEXT

ID: Final = re.compile(r"[A-Za-z0-9_-]{16,64}")
NEXT: Final = re.compile(
    r"/approvals(\?lang=(de|en))?|/(upload|download)\?id=[A-Za-z0-9_-]{16,64}(&lang=(de|en))?"
)


def same_origin(exchange: Exchange, site: Site) -> bool:
    """:returns: whether a POST comes from this site's own page (``kit.guard.same_origin``
    against the public origin)."""
    headers = exchange.request.headers
    return guard.same_origin(
        headers.get_all("origin"), headers.get_all("sec-fetch-site"), site.public_url
    )


def query_param(exchange: Exchange, name: str) -> str | None:
    """:returns: the query's ``name`` if the query is strict (``kit.forms.params``)."""
    try:
        return params(exchange.request.query).get(name)
    except FormError:
        return None


def query_id(exchange: Exchange) -> str | None:
    """:returns: the ``id`` of the query if it is well formed and the only parameter besides
    ``lang``."""
    try:
        found = params(exchange.request.query)
    except FormError:
        return None
    value = found.get("id", "")
    return value if set(found) - {LANG_FIELD} == {"id"} and ID.fullmatch(value) else None


def page_lang(exchange: Exchange, fields: Mapping[str, str] | None = None) -> Lang:
    """:returns: the language of a page request: the ``lang`` of its query, else of its form
    ``fields``, else as its ``Accept-Language`` prefers, else the configured default."""
    asked = query_param(exchange, LANG_FIELD) or (fields or {}).get(LANG_FIELD)
    return lang_of(exchange.request.headers, asked)


def here(exchange: Exchange) -> str:
    """:returns: the request's path and query (the page the language switch links to)."""
    request = exchange.request
    return f"{request.path}?{request.query}" if request.query else request.path


async def refuse(exchange: Exchange, lang: Lang, session: Session | None = None) -> None:
    """Answer 403: the request did not come from this site's pages (CSRF, Origin)."""
    t = TEXT[lang]
    page = message_page(lang, t["error_title"], t["refused"], session, here=here(exchange))
    await send_html(exchange, 403, page)


async def require_session(exchange: Exchange, sessions: SessionStore, lang: Lang) -> Session | None:
    """:returns: the request's session; without one, answers and returns ``None``: a page
    that continues in the same tab after a navigation from another site (whose request carries
    no ``SameSite=Strict`` cookie), otherwise the sign-in page's address."""
    session = await sessions.of(exchange.request.headers)
    if session is not None:
        return session
    request = exchange.request
    target = here(exchange)
    if exchange.request.method == "GET" and request.headers.get("sec-fetch-site") == "cross-site":
        t = TEXT[lang]
        content = (
            f"<h1>{t['continue_title']}</h1><p>{t['continue_lead']}</p>"
            f'<p><a class="button primary" href="{e(target)}">{t["continue"]}</a></p>'
        )
        await send_html(exchange, 200, document(lang, t["continue_title"], content, here=target))
        return None
    next_path = target if NEXT.fullmatch(target) else "/approvals"
    await see_other(exchange, with_lang(f"/signin?next={quote(next_path, safe='')}", lang))
    return None

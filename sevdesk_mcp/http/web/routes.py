"""The pages' routes on the main listener (OAuth mode): sign-in, the inbox, uploads and
downloads, and the upload page's script. All are ``public`` for the router (no bearer token:
they check the browser session themselves) and keep its Host, Origin and rate rules."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping

import msgspec

from sevdesk_mcp.http.auth import CURRENT_PRINCIPAL
from sevdesk_mcp.http.connection import Exchange, Handler
from sevdesk_mcp.http.oauth.consent import authorize_post
from sevdesk_mcp.http.oauth.core import AuthServer
from sevdesk_mcp.http.oauth.verifier import GrantedAccess
from sevdesk_mcp.http.router import Route
from sevdesk_mcp.http.web import files, inbox, script, signin
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.safety.approvals import ASKER, Asker
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.transfers import CALLER


def web_routes(hub: WebHub) -> dict[str, Route]:
    """:returns: the pages' routes."""

    def bound(handler: Callable[[WebHub, Exchange], Awaitable[None]]) -> Handler:
        return functools.partial(handler, hub)

    routes = {
        "/signin": Route(
            {"GET": bound(signin.signin_get), "POST": bound(signin.signin_post)}, public=True
        ),
        "/signout": Route({"POST": bound(signin.signout_post)}, public=True),
        "/web/upload.js": Route({"GET": script.send_script}, public=True),
        "/approvals": Route(
            {"GET": bound(inbox.inbox_get), "POST": bound(inbox.inbox_post)}, public=True
        ),
    }
    if hub.transfers is not None:
        routes["/upload"] = Route(
            {"GET": bound(files.upload_get), "POST": bound(files.upload_post)}, public=True
        )
        routes["/download"] = Route(
            {"GET": bound(files.download_get), "POST": bound(files.download_post)}, public=True
        )
    return routes


def with_web(
    routes: Mapping[str, Route], web: WebHub | None, server: AuthServer, secret: Secret
) -> dict[str, Route]:
    """:returns: the routes of OAuth mode with the pages added when ``web`` is given: a
    consent starts a browser session of the person whose token was checked, and every
    ``/mcp`` request runs with its grant's file transfers
    (:data:`~sevdesk_mcp.safety.transfers.CALLER`) and who asks for approvals
    (:data:`~sevdesk_mcp.safety.approvals.ASKER`).

    :param secret: the server secret (``SEVDESK_HTTP_SECRET``) persons are fingerprinted under.
    """
    out = dict(routes)
    if web is None:
        return out
    web.bind(server.site, server.identify, secret)
    mcp = out["/mcp"]
    out["/mcp"] = msgspec.structs.replace(
        mcp, handlers={m: _with_caller(h, web) for m, h in mcp.handlers.items()}
    )
    consent = out["/authorize"]
    post = functools.partial(authorize_post, server, sessions=web.start_session)
    out["/authorize"] = msgspec.structs.replace(
        consent, handlers={**consent.handlers, "POST": post}
    )
    out.update(web_routes(web))
    return out


def _with_caller(handler: Handler, web: WebHub) -> Handler:
    async def serve(exchange: Exchange) -> None:
        access = CURRENT_PRINCIPAL.get()
        caller = None
        if isinstance(access, GrantedAccess):
            person = web.persons.of(access.token)
            caller = web.caller(access.principal, access.account, person)
        reset = CALLER.set(caller)
        asking = ASKER.set(functools.partial(_asker, web))
        try:
            await handler(exchange)
        finally:
            ASKER.reset(asking)
            CALLER.reset(reset)

    return serve


def _asker(web: WebHub) -> Asker | None:
    """:returns: who the current ``/mcp`` request asks for, looked up when an approval is made
    (by then the route has confirmed the grant and knows its client's name)."""
    access = CURRENT_PRINCIPAL.get()
    if not isinstance(access, GrantedAccess):
        return None
    return Asker(web.persons.of(access.token), access.client_name or access.client)

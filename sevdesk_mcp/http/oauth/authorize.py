"""``GET /authorize``: check the authorization request, then show the consent page.

Order (RFC 6749 4.1.2.1, RFC 9700 4.11; O01, O02, O03):

1. the parameters parse, each present once; the client is known (a registered id, or a
   metadata document fetched under the SSRF guard) and ``redirect_uri`` is one of its redirect
   URIs. Any failure here gets an error page and never a redirect: this server is no open
   redirector.
2. Only then do errors go to the redirect URI (with ``state`` echoed and ``iss``, RFC 9207):
   ``response_type`` must be ``code``, PKCE must be S256 with a 43-character challenge, the
   ``resource`` (optional) must be this server's ``/mcp``, the scopes must be known.
3. The checked request is sealed into the consent form (10 minutes), bound to a fresh consent
   cookie (``SameSite=Strict``, ``HttpOnly``; ``__Host-`` and ``Secure`` over https) whose MAC
   is the form's CSRF token. Nothing is remembered between authorizations: every client, and
   every authorization, asks the user again (O09).
"""

from __future__ import annotations

import base64
import re
import secrets
from typing import Final
from urllib.parse import urlencode, urlsplit

from sevdesk_mcp.errors import OAuthError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.kit.forms import cookie_attributes as page_cookie
from sevdesk_mcp.http.kit.lang import Lang, lang_of, other_lang
from sevdesk_mcp.http.kit.page import send_html
from sevdesk_mcp.http.oauth.claims import AuthRequest, encode
from sevdesk_mcp.http.oauth.clients import Client
from sevdesk_mcp.http.oauth.consent_page import ConsentView, consent_page, error_page
from sevdesk_mcp.http.oauth.core import AuthServer, tiers_of
from sevdesk_mcp.http.oauth.forms import parse_params
from sevdesk_mcp.http.oauth.redirects import redirect_matches
from sevdesk_mcp.http.oauth_settings import CONSENT_TTL_S
from sevdesk_mcp.safety.tiers import Tier

COOKIE: Final = "sevdesk_consent"
SECURE_COOKIE: Final = "__Host-sevdesk_consent"
_CHALLENGE: Final = re.compile(r"[A-Za-z0-9_-]{43}")
_LOOPBACK_HOSTS: Final = ("127.0.0.1", "::1", "localhost")


def cookie_name(server: AuthServer) -> str:
    """:returns: the consent cookie's name (``__Host-`` prefixed over https)."""
    return SECURE_COOKIE if server.site.https else COOKIE


def csrf_token(server: AuthServer, nonce: str) -> str:
    """:returns: the CSRF token of the consent cookie ``nonce``."""
    return base64.urlsafe_b64encode(server.sealer.mac(nonce.encode())).decode().rstrip("=")


async def authorize_get(server: AuthServer, exchange: Exchange) -> None:
    """Serve ``GET /authorize`` (see the module docstring)."""
    request = exchange.request
    lang = lang_of(request.headers)
    try:
        params = parse_params(request.query)
        lang = lang_of(request.headers, params.get("lang"))
        client, redirect_uri = await client_and_redirect(server, params)
    except OAuthError as exc:
        await send_html(exchange, 400, error_page(exc.description, lang))
        return
    try:
        checked = check_request(server, params, client, redirect_uri)
    except OAuthError as exc:
        await redirect_error(exchange, server, redirect_uri, exc, params.get("state"))
        return
    nonce = secrets.token_urlsafe(32)
    sealed = server.sealer.seal("authreq", encode(_bind(checked, nonce, server.now())))
    view = consent_view(server, checked, (sealed, csrf_token(server, nonce)), lang)
    cookie = f"{cookie_name(server)}={nonce}; {cookie_attributes(server, CONSENT_TTL_S)}"
    await send_html(exchange, 200, consent_page(view, lang), (("set-cookie", cookie),))


async def client_and_redirect(server: AuthServer, params: dict[str, str]) -> tuple[Client, str]:
    """:returns: the client and its checked redirect URI (step 1).

    :raises OAuthError: for anything that must not be answered by a redirect.
    """
    client_id = params.get("client_id")
    if not client_id:
        raise OAuthError("invalid_request", "The request names no client (client_id).")
    client = await server.clients.resolve(client_id)
    redirect_uri = params.get("redirect_uri")
    if not redirect_uri or not redirect_matches(client.redirect_uris, redirect_uri):
        raise OAuthError(
            "invalid_request",
            "The redirect_uri is not one this client registered; it must match exactly.",
        )
    return client, redirect_uri


def check_request(
    server: AuthServer, params: dict[str, str], client: Client, redirect_uri: str
) -> AuthRequest:
    """:returns: the checked request, not yet bound to a cookie (step 2).

    :raises OAuthError: to be sent to the redirect URI.
    """
    if params.get("response_type") != "code":
        raise OAuthError("unsupported_response_type", "Only response_type=code is supported.")
    if params.get("code_challenge_method") != "S256":
        raise OAuthError("invalid_request", "PKCE is required: code_challenge_method=S256.")
    challenge = params.get("code_challenge", "")
    if not _CHALLENGE.fullmatch(challenge):
        raise OAuthError(
            "invalid_request", "code_challenge must be 43 base64url characters (S256)."
        )
    server.check_resource(params.get("resource"))
    asked = tiers_of(params.get("scope")) or frozenset({Tier.READ})
    return AuthRequest(
        client=client.client_id,
        client_name=client.client_name,
        client_host=client.host,
        redirect_uri=redirect_uri,
        state=params.get("state"),
        challenge=challenge,
        aud=server.resource,
        tiers=tuple(str(t) for t in sorted(asked & server.allowed)),
        nonce="",
        exp=0,
    )


def _bind(request: AuthRequest, nonce: str, now: int) -> AuthRequest:
    from msgspec.structs import replace  # noqa: PLC0415 - small and local

    return replace(request, nonce=nonce, exp=now + CONSENT_TTL_S)


def consent_view(
    server: AuthServer,
    request: AuthRequest,
    fields: tuple[str, str],
    lang: Lang,
    error: str | None = None,
) -> ConsentView:
    """:returns: what the consent page shows for ``request``; ``fields``: the sealed request
    and the CSRF token."""
    sealed, csrf = fields
    redirect_host = urlsplit(request.redirect_uri).hostname or ""
    client_host = request.client_host
    if client_host is None:
        client_host = "registered client" if lang == "en" else "registrierter Client"
    offered = tuple(sorted(server.allowed))
    return ConsentView(
        client_name=request.client_name,
        client_host=client_host,
        redirect_host=redirect_host,
        redirect_local=redirect_host in _LOOPBACK_HOSTS,
        request=sealed,
        csrf=csrf,
        offered=offered,
        checked=frozenset(Tier.parse(t) for t in request.tiers),
        other_lang_url=f"/authorize?{_with_lang(request, other_lang(lang))}",
        error=error,
    )


def _with_lang(request: AuthRequest, lang: Lang) -> str:
    params = {
        "response_type": "code",
        "client_id": request.client,
        "redirect_uri": request.redirect_uri,
        "code_challenge": request.challenge,
        "code_challenge_method": "S256",
        "scope": " ".join(f"sevdesk:{t}" for t in request.tiers),
        "lang": lang,
    }
    if request.state is not None:
        params["state"] = request.state
    return urlencode(params)


def cookie_attributes(server: AuthServer, max_age_s: int) -> str:
    """:returns: the consent cookie's attributes (a page cookie of the kit)."""
    return page_cookie(max_age_s, https=server.site.https)


def redirect_url(redirect_uri: str, params: dict[str, str]) -> str:
    """:returns: ``redirect_uri`` with ``params`` added to its query."""
    return redirect_uri + ("&" if "?" in redirect_uri else "?") + urlencode(params)


async def redirect_error(
    exchange: Exchange,
    server: AuthServer,
    redirect_uri: str,
    error: OAuthError,
    state: str | None,
) -> None:
    """Send the user back with an error (``iss`` and ``state`` included, RFC 9207)."""
    params = {"error": error.error, "error_description": error.description}
    if state is not None:
        params["state"] = state
    await redirect(exchange, server, redirect_uri, params)


async def redirect(
    exchange: Exchange,
    server: AuthServer,
    redirect_uri: str,
    params: dict[str, str],
    headers: tuple[tuple[str, str], ...] = (),
) -> None:
    """Answer 303 (never 307, RFC 9700 4.12) to the redirect URI with ``params`` (``state``
    included by the caller) and ``iss``."""
    full = {**params, "iss": server.issuer}
    await exchange.respond(303, [("location", redirect_url(redirect_uri, full)), *headers])

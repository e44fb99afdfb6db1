"""``POST /authorize``: the user's decision on the consent page.

Checked in this order; the first failure answers a page, never a redirect:

1. a form within :data:`MAX_CONSENT_BYTES`, each field once;
2. a same-origin POST: ``Origin`` is absent or this server's own (never ``null``), and
   ``Sec-Fetch-Site``, when sent, is ``same-origin`` (403 otherwise);
3. the consent cookie is present and the form's CSRF token is its MAC (403 otherwise, O09);
4. the sealed request opens, is not expired and is bound to that cookie.

Then a denial goes back to the client as ``access_denied``. An approval needs the user's
sevDesk token: it is registered with the redactor at once, checked with ``GET /SevClient``
(a refusal shows the page again with the reason), and then travels only inside the sealed
code. The code's redirect carries ``code``, ``state`` and ``iss``; the cookie is cleared, and
with the pages of ``http.web`` a browser session of the account starts.
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Callable
from typing import Final

import msgspec

from sevdesk_mcp.errors import AuthenticationError, OAuthError, UpstreamError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.oauth.authorize import (
    consent_view,
    cookie_attributes,
    cookie_name,
    csrf_token,
    pick_lang,
    redirect,
    redirect_error,
    send_page,
)
from sevdesk_mcp.http.oauth.claims import AuthRequest, CodeClaims, encode
from sevdesk_mcp.http.oauth.consent_page import Lang, consent_page, error_page
from sevdesk_mcp.http.oauth.core import AuthServer, Identity
from sevdesk_mcp.http.oauth.forms import read_form
from sevdesk_mcp.http.oauth.settings import CODE_TTL_S
from sevdesk_mcp.http.settings import normalize_origin
from sevdesk_mcp.safety.redact import REDACTOR, Secret
from sevdesk_mcp.safety.tiers import Tier

MAX_CONSENT_BYTES: Final = 8 * 1024
StartSession = Callable[[Identity, Secret], str]  # the Set-Cookie value of a session (the token
# that was checked names its person)
_SEVDESK_TOKEN: Final = re.compile(r"[0-9A-Fa-f]{32}")  # sevDesk: 32 hex digits
_decode_request = msgspec.msgpack.Decoder(AuthRequest)
REFUSED: Final[dict[Lang, str]] = {
    "en": "This decision did not come from this server's consent page. Start again from your app.",
    "de": "Diese Entscheidung kam nicht von der Zustimmungsseite dieses Servers. Beginnen Sie "
    "in Ihrer App neu.",
}
EXPIRED: Final[dict[Lang, str]] = {
    "en": "This consent page has expired (after 10 minutes). Start again from your app.",
    "de": "Diese Zustimmungsseite ist abgelaufen (nach 10 Minuten). Beginnen Sie in Ihrer App neu.",
}
BAD_TOKEN: Final[dict[Lang, str]] = {
    "en": "That is not a sevDesk API token (32 letters and digits). Copy it again from sevDesk.",
    "de": "Das ist kein sevDesk-API-Token (32 Buchstaben und Ziffern). Kopieren Sie ihn erneut "
    "aus sevDesk.",
}
TOKEN_REFUSED: Final[dict[Lang, str]] = {
    "en": "sevDesk refused this token. Check that it is your current API token.",
    "de": "sevDesk hat diesen Token abgelehnt. Prüfen Sie, ob es Ihr aktueller API-Token ist.",
}
UNREACHABLE: Final[dict[Lang, str]] = {
    "en": "sevDesk could not be asked about this token just now. Try again in a minute.",
    "de": "sevDesk war gerade nicht erreichbar, um den Token zu prüfen. Versuchen Sie es in "
    "einer Minute erneut.",
}


async def authorize_post(
    server: AuthServer, exchange: Exchange, sessions: StartSession | None = None
) -> None:
    """Serve ``POST /authorize`` (see the module docstring); ``sessions`` starts a browser
    session of the account after an approval (the inbox and file pages, ``http.web``)."""
    headers = exchange.request.headers
    lang = pick_lang(None, headers.get("accept-language"))
    try:
        form = await read_form(exchange, MAX_CONSENT_BYTES)
    except OAuthError as exc:
        await send_page(exchange, 400, error_page(exc.description, lang))
        return
    lang = pick_lang(form.get("lang"), headers.get("accept-language"))
    nonce = _cookie(headers.get_all("cookie"), cookie_name(server))
    if not _same_origin(server, exchange) or not _csrf_ok(server, nonce, form.get("csrf")):
        await send_page(exchange, 403, error_page(REFUSED[lang], lang))
        return
    request = _open_request(server, form.get("request", ""), nonce)
    if request is None:
        await send_page(exchange, 400, error_page(EXPIRED[lang], lang))
        return
    if form.get("decision") != "allow":
        denied = OAuthError("access_denied", "The user denied the request.")
        await redirect_error(exchange, server, request.redirect_uri, denied, request.state)
        return
    await _approve(server, exchange, request, form, lang, sessions=sessions)


async def _approve(  # noqa: PLR0913 - the session starter is optional
    server: AuthServer,
    exchange: Exchange,
    request: AuthRequest,
    form: dict[str, str],
    lang: Lang,
    *,
    sessions: StartSession | None = None,
) -> None:
    token = form.get("sevdesk_token", "").strip()
    identity, problem = await _identify(server, token, lang)
    if identity is None:
        fields = (form.get("request", ""), form.get("csrf", ""))
        view = consent_view(server, request, fields, lang, error=problem)
        await send_page(exchange, 400, consent_page(view, lang))
        return
    chosen = frozenset(t for t in server.allowed if form.get(f"tier_{t}") == "on")
    tiers = tuple(str(t) for t in sorted(chosen | {Tier.READ}))
    code = CodeClaims(
        code_id=secrets.token_urlsafe(16),
        client=request.client,
        redirect_uri=request.redirect_uri,
        challenge=request.challenge,
        aud=request.aud,
        tiers=tiers,
        account=identity.id,
        account_name=identity.name,
        sevdesk=token,
        exp=server.now() + CODE_TTL_S,
    )
    params = {"code": server.sealer.seal("code", encode(code))}
    if request.state is not None:
        params["state"] = request.state
    clear = f"{cookie_name(server)}=; {cookie_attributes(server, 0)}"
    cookies = [("set-cookie", clear)]
    if sessions is not None:
        cookies.append(("set-cookie", sessions(identity, Secret(token))))
    await redirect(exchange, server, request.redirect_uri, params, tuple(cookies))


async def _identify(server: AuthServer, token: str, lang: Lang) -> tuple[Identity | None, str]:
    if not _SEVDESK_TOKEN.fullmatch(token):
        return None, BAD_TOKEN[lang]
    # only a token of sevDesk's own shape is a secret to mask (registering whatever a visitor
    # types would let anyone mask any word of every answer); before anything can fail with it
    REDACTOR.add(token)
    try:
        return await server.identify(Secret(token)), ""
    except AuthenticationError:
        return None, TOKEN_REFUSED[lang]
    except UpstreamError:
        return None, UNREACHABLE[lang]


def _open_request(server: AuthServer, sealed: str, nonce: str | None) -> AuthRequest | None:
    request = server.open_claims("authreq", sealed, _decode_request)
    if request is None or nonce is None:
        return None
    return request if hmac.compare_digest(request.nonce.encode(), nonce.encode()) else None


def _same_origin(server: AuthServer, exchange: Exchange) -> bool:
    headers = exchange.request.headers
    origins = headers.get_all("origin")
    if len(origins) > 1 or (origins and normalize_origin(origins[0]) != server.issuer):
        return False
    fetch_site = headers.get("sec-fetch-site")
    return fetch_site in (None, "same-origin")


def _csrf_ok(server: AuthServer, nonce: str | None, csrf: str | None) -> bool:
    if not nonce or not csrf:
        return False
    return hmac.compare_digest(csrf_token(server, nonce).encode(), csrf.encode())


def _cookie(values: list[str], name: str) -> str | None:
    found = [
        value.strip()
        for header in values
        for key, sep, value in (part.strip().partition("=") for part in header.split(";"))
        if sep and key == name
    ]
    return found[0] if len(found) == 1 else None

"""``POST /authorize``: the user's decision on the consent page.

Checked in this order; the first failure answers a page, never a redirect:

1. a form within :data:`MAX_CONSENT_BYTES`, each field once;
2. a same-origin POST (the page kit's ``guard.same_origin`` with ``bare``): ``Origin`` is
   absent or this server's own (never ``null``), and ``Sec-Fetch-Site``, when sent, is
   ``same-origin`` (403 otherwise);
3. the consent cookie is present and the form's CSRF token is its MAC (403 otherwise, O09);
4. the sealed request opens, is not expired and is bound to that cookie.

Then a denial goes back to the client as ``access_denied``. An approval needs the user's
sevDesk token: it is registered with the redactor at once, checked with ``GET /SevClient``
(a refusal shows the page again with the reason), and then travels only inside the sealed
code. The code's redirect carries ``code``, ``state`` and ``iss``; the cookie is cleared, and
with the pages of ``http.web`` a browser session of the account starts.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Final

import msgspec

from sevdesk_mcp.errors import OAuthError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.kit.forms import cookie
from sevdesk_mcp.http.kit.guard import same_origin, tokens_match
from sevdesk_mcp.http.kit.lang import Lang, lang_of
from sevdesk_mcp.http.kit.page import send_html
from sevdesk_mcp.http.kit.token import FIELD, checked_token
from sevdesk_mcp.http.oauth.authorize import (
    consent_view,
    cookie_attributes,
    cookie_name,
    csrf_token,
    redirect,
    redirect_error,
)
from sevdesk_mcp.http.oauth.claims import AuthRequest, CodeClaims, encode
from sevdesk_mcp.http.oauth.consent_page import consent_page, error_page
from sevdesk_mcp.http.oauth.core import AuthServer, Identity
from sevdesk_mcp.http.oauth.forms import read_form
from sevdesk_mcp.http.oauth_settings import CODE_TTL_S
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.tiers import Tier

MAX_CONSENT_BYTES: Final = 8 * 1024
StartSession = Callable[[Identity, Secret], str]  # the Set-Cookie value of a session (the token
# that was checked names its person)
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


async def authorize_post(
    server: AuthServer, exchange: Exchange, sessions: StartSession | None = None
) -> None:
    """Serve ``POST /authorize`` (see the module docstring); ``sessions`` starts a browser
    session of the account after an approval (the inbox and file pages, ``http.web``)."""
    headers = exchange.request.headers
    lang = lang_of(headers)
    try:
        form = await read_form(exchange, MAX_CONSENT_BYTES)
    except OAuthError as exc:
        await send_html(exchange, 400, error_page(exc.description, lang))
        return
    lang = lang_of(headers, form.get("lang"))
    nonce = cookie(headers.get_all("cookie"), cookie_name(server))
    posted_here = same_origin(
        headers.get_all("origin"), headers.get_all("sec-fetch-site"), server.issuer, bare=True
    )
    if not posted_here or not _csrf_ok(server, nonce, form.get("csrf")):
        await send_html(exchange, 403, error_page(REFUSED[lang], lang))
        return
    request = _open_request(server, form.get("request", ""), nonce)
    if request is None:
        await send_html(exchange, 400, error_page(EXPIRED[lang], lang))
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
    token = form.get(FIELD, "").strip()
    identity, problem = await checked_token(server.identify, token, lang)
    if identity is None:
        fields = (form.get("request", ""), form.get("csrf", ""))
        view = consent_view(server, request, fields, lang, error=problem)
        await send_html(exchange, 400, consent_page(view, lang))
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


def _open_request(server: AuthServer, sealed: str, nonce: str | None) -> AuthRequest | None:
    request = server.open_claims("authreq", sealed, _decode_request)
    return request if request is not None and tokens_match(request.nonce, nonce) else None


def _csrf_ok(server: AuthServer, nonce: str | None, csrf: str | None) -> bool:
    if not nonce:
        return False
    return tokens_match(csrf_token(server, nonce), csrf)

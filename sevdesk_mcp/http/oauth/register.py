"""``POST /register``: dynamic client registration (RFC 7591), for clients without CIMD.

- At most :data:`REGISTRATIONS_BURST` registrations at once and one per
  :data:`REGISTRATION_INTERVAL_S` after that, per client address (429 with ``Retry-After``,
  O14); a JSON body of at most 16 KiB (413 above).
- Redirect URIs must be https, or http to a loopback host (``invalid_redirect_uri``); grants
  only ``authorization_code`` and ``refresh_token``, responses only ``code``
  (``invalid_client_metadata``).
- The ``client_name`` must be what a human sees: a bidi control or an invisible character in it
  is ``invalid_client_metadata`` naming the code points (``names``).
- Every client is public: the answer says ``token_endpoint_auth_method: none`` whatever was
  asked, and there is no client secret. Unknown metadata is ignored (RFC 7591 2).
"""

from __future__ import annotations

from typing import Annotated, Final

import msgspec

from sevdesk_mcp.errors import HttpError, OAuthError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.hardening import client_key
from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.messages import JSON_TYPE
from sevdesk_mcp.http.oauth.core import AuthServer, new_id
from sevdesk_mcp.http.oauth.forms import CORS_HEADERS, send_error, send_json
from sevdesk_mcp.http.oauth.names import hidden_in
from sevdesk_mcp.http.oauth.redirects import MAX_URI_CHARS, redirect_uri_allowed
from sevdesk_mcp.http.oauth.store import RegisteredClient
from sevdesk_mcp.http.ratelimit import RateLimits

MAX_REGISTRATION_BYTES: Final = 16 * 1024
REGISTRATIONS_BURST: Final = 10
REGISTRATION_INTERVAL_S: Final = 6.0
DEFAULT_CLIENT_NAME: Final = "MCP client"


class Registration(msgspec.Struct, frozen=True, kw_only=True):
    """The registration metadata this server reads (others are ignored)."""

    redirect_uris: Annotated[
        list[Annotated[str, msgspec.Meta(max_length=MAX_URI_CHARS)]],
        msgspec.Meta(min_length=1, max_length=20),
    ]
    client_name: Annotated[str, msgspec.Meta(max_length=200)] | None = None
    grant_types: list[str] = msgspec.field(default_factory=lambda: ["authorization_code"])
    response_types: list[str] = msgspec.field(default_factory=lambda: ["code"])


REGISTRATION_LIMITS: Final = Limits(
    rate_per_s=1 / REGISTRATION_INTERVAL_S, rate_burst=REGISTRATIONS_BURST
)


async def register_endpoint(server: AuthServer, limiter: RateLimits, exchange: Exchange) -> None:
    """Serve ``POST /register``.

    :param limiter: the per-address limiter of registrations (:data:`REGISTRATION_LIMITS`).
    :raises HttpError: 429 over the rate, 413 over the size cap.
    :raises StateUnavailableError: if shared limits or the grant store cannot be reached.
    """
    wait_s = await limiter.retry_after_s(client_key(exchange.client))
    if wait_s is not None:
        raise HttpError(
            429, "Too many client registrations.", headers=(("retry-after", str(wait_s)),)
        )
    try:
        registration = await _read(exchange)
        client = _client(server, registration)
    except OAuthError as exc:
        await send_error(exchange, exc, cors=True)
        return
    await server.store.add_client(client)
    await send_json(exchange, 201, _answer(client), CORS_HEADERS)


async def _read(exchange: Exchange) -> Registration:
    media = (exchange.request.headers.get("content-type") or "").partition(";")[0]
    if media.strip().lower() != JSON_TYPE:
        raise OAuthError("invalid_client_metadata", "Send the metadata as application/json.")
    body = await exchange.read_body(MAX_REGISTRATION_BYTES)
    try:
        return msgspec.json.decode(body, type=Registration)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        reason = str(exc).splitlines()[0][:120]
        raise OAuthError(
            "invalid_client_metadata", f"The metadata is not valid: {reason}."
        ) from None


def _client(server: AuthServer, registration: Registration) -> RegisteredClient:
    if not all(redirect_uri_allowed(uri) for uri in registration.redirect_uris):
        raise OAuthError(
            "invalid_redirect_uri",
            "Every redirect URI must be https, or http to 127.0.0.1, ::1 or localhost, "
            "without a fragment.",
        )
    if not set(registration.grant_types) <= {"authorization_code", "refresh_token"}:
        raise OAuthError(
            "invalid_client_metadata",
            "Only the authorization_code and refresh_token grant types are supported.",
        )
    if set(registration.response_types) != {"code"}:
        raise OAuthError("invalid_client_metadata", "Only the code response type is supported.")
    return RegisteredClient(
        client_id=new_id("c_"),
        client_name=_client_name(registration.client_name),
        redirect_uris=tuple(registration.redirect_uris),
        created=server.now(),
    )


def _client_name(asked: str | None) -> str:
    """:returns: the name to show for a client (:data:`DEFAULT_CLIENT_NAME` without one).

    :raises OAuthError: ``invalid_client_metadata`` if it holds characters a human would not see.
    """
    hidden = hidden_in(asked or "")
    if hidden:
        raise OAuthError(
            "invalid_client_metadata",
            f"The client_name contains characters a human would not see ({hidden}); remove "
            "them and register again.",
        )
    return (asked or "").strip() or DEFAULT_CLIENT_NAME


def _answer(client: RegisteredClient) -> dict[str, object]:
    return {
        "client_id": client.client_id,
        "client_id_issued_at": client.created,
        "client_name": client.client_name,
        "redirect_uris": list(client.redirect_uris),
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }

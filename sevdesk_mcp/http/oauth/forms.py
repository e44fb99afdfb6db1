"""Strict parsing of OAuth requests and the shape of OAuth answers.

- A form (or query) repeating a parameter is refused with ``invalid_request`` (RFC 6749 3.1,
  O07); so is one that is not UTF-8, holds too many fields, or a value with a control character
  (the page kit's one reader, ``http.kit.forms``, with its messages).
- ``/token`` and ``/revoke`` take ``application/x-www-form-urlencoded`` only (O13).
- Every JSON answer carries ``Cache-Control: no-store`` (the base headers) and ``Pragma:
  no-cache``; OAuth errors carry ``error`` and ``error_description``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Final
from urllib.parse import unquote

import msgspec

from sevdesk_mcp.errors import FormError, OAuthError
from sevdesk_mcp.http.connection import Exchange
from sevdesk_mcp.http.kit.forms import params
from sevdesk_mcp.http.kit.forms import read_form as kit_read_form
from sevdesk_mcp.http.messages import JSON_TYPE, HeaderList, Headers

CORS_HEADERS: Final = (
    ("access-control-allow-origin", "*"),
    ("access-control-allow-methods", "GET, POST, OPTIONS"),
    ("access-control-allow-headers", "authorization, content-type, mcp-protocol-version"),
    ("access-control-max-age", "600"),
)
_encoder = msgspec.json.Encoder()


def parse_params(raw: str) -> dict[str, str]:
    """:returns: the parameters of a query string or form body, each present once (the page
    kit's reader, ``http.kit.forms``).

    :raises OAuthError: ``invalid_request`` for a repeated parameter or a malformed one.
    """
    try:
        return params(raw)
    except FormError as exc:
        raise OAuthError("invalid_request", str(exc)) from None


async def read_form(exchange: Exchange, max_bytes: int) -> dict[str, str]:
    """:returns: the form body of a POST (the page kit's reader).

    :raises OAuthError: ``invalid_request`` if it is not a UTF-8 form.
    :raises HttpError: 413 over ``max_bytes``.
    """
    try:
        return await kit_read_form(exchange, max_bytes)
    except FormError as exc:
        raise OAuthError("invalid_request", str(exc)) from None


def basic_credentials(headers: Headers) -> tuple[str, str] | None:
    """:returns: the ``(client_id, secret)`` of an ``Authorization: Basic`` header, or ``None``.

    :raises OAuthError: 401 ``invalid_client`` if the header is malformed (O13).
    """
    values = headers.get_all("authorization")
    if not values:
        return None
    scheme, _, encoded = values[0].partition(" ")
    if len(values) != 1 or scheme.lower() != "basic":
        raise _bad_client("Send client credentials as one Authorization: Basic header.")
    try:
        text = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise _bad_client("The Basic credentials are not valid base64 of UTF-8.") from None
    user, colon, secret = text.partition(":")
    if not colon:
        raise _bad_client("The Basic credentials need the form client_id:secret.")
    return unquote(user), unquote(secret)


def _bad_client(message: str) -> OAuthError:
    return OAuthError("invalid_client", message, status=401)


async def send_json(
    exchange: Exchange,
    status: int,
    document: Mapping[str, object],
    headers: HeaderList | tuple[tuple[str, str], ...] = (),
) -> None:
    """Answer with a JSON document (never cached)."""
    head = [("content-type", JSON_TYPE), ("pragma", "no-cache"), *headers]
    await exchange.respond(status, head, _encoder.encode(document))


async def send_error(exchange: Exchange, error: OAuthError, *, cors: bool = False) -> None:
    """Answer an OAuth error as JSON (RFC 6749 5.2); ``invalid_client`` with 401 gets
    ``WWW-Authenticate: Basic``."""
    headers: list[tuple[str, str]] = list(CORS_HEADERS) if cors else []
    if error.status == 401:
        headers.append(("www-authenticate", 'Basic realm="mcp-server-sevdesk"'))
    body = {"error": error.error, "error_description": error.description}
    await send_json(exchange, error.status, body, headers)

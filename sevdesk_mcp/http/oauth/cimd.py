"""Client ID Metadata Documents: fetched with an SSRF guard, validated strictly, cached.

Rules (MCP client registration; draft-ietf-oauth-client-id-metadata-document):

1. The ``client_id`` is an https URL with a path, no user, query, fragment, ``.`` or ``..``
   segment, at most :data:`MAX_URL_CHARS` printable ASCII characters (so no host shown
   anywhere can hold a bidi control).
2. The host name is resolved once; every address must be public (``addresses``: not private,
   loopback, link-local, multicast, reserved or unspecified, nor an IPv6 form carrying such an
   IPv4 address; loopback only with ``SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS``), and the request
   goes to the checked address (TLS still verifies the host name against certifi's
   authorities and those of ``SEVDESK_HTTP_OAUTH_CA_FILE``): DNS rebinding between check and
   use is impossible.
3. No redirects, no proxies, :data:`FETCH_TIMEOUT_S` for the whole fetch, at most
   :data:`MAX_DOCUMENT_BYTES` decoded (gzip or no encoding); status 200 and a JSON media type
   only (``cimd_body``). A failed connection, handshake or read is a refusal like the others.
4. The document is a JSON object whose ``client_id`` equals the URL exactly, with a name a
   human can read as it is (no hidden characters, ``names``) and 1 to 20 redirect URIs (https,
   or http to loopback), no client secret, and the ``none`` authentication method (a public
   client).
5. A valid document is cached as its ``Cache-Control`` says (``max-age``, bounded to
   :data:`MAX_CACHE_S`; :data:`DEFAULT_CACHE_S` without one; never with ``no-store`` or
   ``no-cache``); failures are never cached.
"""

from __future__ import annotations

import re
import socket
import ssl
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Annotated, Final
from urllib.parse import urlsplit

import anyio
import httpx
import msgspec

from sevdesk_mcp.http.oauth.addresses import public_address
from sevdesk_mcp.http.oauth.cimd_body import (
    ACCEPT_ENCODING,
    MAX_DOCUMENT_BYTES,
    fetch_failure,
    read_capped,
    refused,
)
from sevdesk_mcp.http.oauth.names import hidden_in
from sevdesk_mcp.http.oauth.redirects import redirect_uri_allowed

__all__ = ["MAX_DOCUMENT_BYTES", "CimdDocument", "CimdFetcher"]

FETCH_TIMEOUT_S: Final = 5.0
MAX_URL_CHARS: Final = 2048
DEFAULT_CACHE_S: Final = 300
MAX_CACHE_S: Final = 24 * 3600
MAX_CACHED: Final = 256
_MAX_AGE: Final = re.compile(r"(?:^|,)\s*max-age\s*=\s*(\d{1,9})\s*(?:,|$)")
PUBLIC_CLIENT: Final = "none"

Uri = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_URL_CHARS)]


class CimdDocument(msgspec.Struct, frozen=True, kw_only=True):
    """The fields of a metadata document that matter here (others are ignored)."""

    client_id: Uri
    client_name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    redirect_uris: Annotated[list[Uri], msgspec.Meta(min_length=1, max_length=20)]
    token_endpoint_auth_method: str = PUBLIC_CLIENT
    grant_types: list[str] = msgspec.field(default_factory=lambda: ["authorization_code"])
    response_types: list[str] = msgspec.field(default_factory=lambda: ["code"])
    client_secret: str | None = None
    client_secret_expires_at: int | None = None


class CimdFetcher:
    """Fetches and caches metadata documents.

    :param allow_loopback: accept loopback addresses (a test setting).
    :param verify: the TLS verification (a test's own certificate authority in tests).
    :param clock: monotonic seconds.
    """

    def __init__(
        self,
        *,
        allow_loopback: bool = False,
        verify: ssl.SSLContext | bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._allow_loopback = allow_loopback
        self._verify = verify
        self._clock = clock
        self._cache: OrderedDict[str, tuple[CimdDocument, float]] = OrderedDict()

    def check_url(self, url: str) -> str:
        """:returns: the host of a well-formed client id URL (rule 1).

        :raises UnsafeClientError: if the URL breaks rule 1.
        """
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a bad port
        except ValueError:
            raise refused("the client_id is not a valid URL") from None
        segments = parts.path.split("/")
        if (
            len(url) > MAX_URL_CHARS
            or parts.scheme != "https"
            or not parts.hostname
            or parts.path in ("", "/")
            or "." in segments
            or ".." in segments
            or parts.username is not None
            or parts.query
            or parts.fragment
            or "#" in url
            or "?" in url
        ):
            raise refused(
                "a client_id URL must be https with a path, and no user, query, fragment or "
                "dot segments"
            )
        if not url.isascii() or not url.isprintable() or " " in url:
            raise refused(
                "a client_id URL must be ASCII without spaces or control characters (an "
                "international host name in its xn-- form, other characters percent-encoded)"
            )
        return parts.hostname.lower()

    async def fetch(self, url: str) -> CimdDocument:
        """:returns: the valid document at ``url``, from the cache while it is fresh.

        :raises UnsafeClientError: if it cannot be fetched safely or is not valid.
        """
        now = self._clock()
        cached = self._cache.get(url)
        if cached is not None and cached[1] > now:
            return cached[0]
        self._cache.pop(url, None)
        self.check_url(url)
        with anyio.move_on_after(FETCH_TIMEOUT_S) as scope:
            document, max_age = await self._fetch(url)
        if scope.cancelled_caught:
            raise refused(f"fetching it took longer than {FETCH_TIMEOUT_S:g} seconds")
        if max_age > 0:
            self._cache[url] = (document, now + max_age)
            while len(self._cache) > MAX_CACHED:
                self._cache.popitem(last=False)
        return document

    async def _fetch(self, url: str) -> tuple[CimdDocument, int]:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port or 443
        address = await self._address(host, port)
        literal = f"[{address}]" if ":" in address else address
        target = f"https://{literal}:{port}{parts.path}"
        headers = {
            "host": parts.netloc.rpartition("@")[2],
            "accept": "application/json",
            "accept-encoding": ACCEPT_ENCODING,
        }
        try:
            async with (
                httpx.AsyncClient(
                    verify=self._verify, follow_redirects=False, trust_env=False
                ) as http,
                http.stream(
                    "GET", target, headers=headers, extensions={"sni_hostname": host}
                ) as response,
            ):
                body = await read_capped(response)
        except httpx.HTTPError as exc:
            raise refused(fetch_failure(exc, host, port)) from None
        return _validate(url, body), _max_age(response.headers.get("cache-control"))

    async def _address(self, host: str, port: int) -> str:
        try:
            infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            raise refused(f"its host {host} does not resolve") from None
        addresses = [str(info[4][0]) for info in infos]
        allow = self._allow_loopback
        if not addresses or not all(public_address(a, allow_loopback=allow) for a in addresses):
            raise refused(f"its host {host} resolves to a private or special address")
        return addresses[0]


def _validate(url: str, body: bytes) -> CimdDocument:
    try:
        document = msgspec.json.decode(body, type=CimdDocument)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise refused(f"the document is not valid ({_short(exc)})") from None
    hidden = hidden_in(document.client_name)
    if hidden:
        raise refused(
            f"its client_name contains characters a human would not see ({hidden}); the "
            "client's operator must remove them"
        )
    if document.client_id != url:
        raise refused("the document's client_id is not exactly the URL it was fetched from")
    if document.client_secret is not None or document.client_secret_expires_at is not None:
        raise refused("the document holds a client secret (a public client has none)")
    if document.token_endpoint_auth_method != PUBLIC_CLIENT:
        raise refused("only public clients (token_endpoint_auth_method none) are supported")
    if not set(document.grant_types) <= {"authorization_code", "refresh_token"}:
        raise refused("only the authorization_code and refresh_token grants are supported")
    if document.response_types != ["code"]:
        raise refused("only the code response type is supported")
    if not all(redirect_uri_allowed(uri) for uri in document.redirect_uris):
        raise refused("every redirect URI must be https, or http to a loopback address")
    return document


def _max_age(cache_control: str | None) -> int:
    value = (cache_control or "").lower()
    if "no-store" in value or "no-cache" in value:
        return 0
    match = _MAX_AGE.search(value)
    return DEFAULT_CACHE_S if match is None else min(int(match.group(1)), MAX_CACHE_S)


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:120]

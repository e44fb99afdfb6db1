"""Client ID Metadata Documents: fetched with an SSRF guard, validated strictly, cached.

Rules (MCP client registration; draft-ietf-oauth-client-id-metadata-document):

1. The ``client_id`` is an https URL with a path, no user, query, fragment, ``.`` or ``..``
   segment, at most :data:`MAX_URL_CHARS` characters.
2. The host name is resolved once; every address must be public (not private, loopback,
   link-local, multicast, reserved or unspecified; loopback only with
   ``SEVDESK_HTTP_OAUTH_LOOPBACK_CLIENTS``), and the request goes to the checked address
   (TLS still verifies the host name): DNS rebinding between check and use is impossible.
3. No redirects, no proxies, :data:`FETCH_TIMEOUT_S` for the whole fetch, at most
   :data:`MAX_DOCUMENT_BYTES`; status 200 and a JSON media type only.
4. The document is a JSON object whose ``client_id`` equals the URL exactly, with a name and
   1 to 20 redirect URIs (https, or http to loopback), no client secret, and the ``none``
   authentication method (a public client).
5. A valid document is cached as its ``Cache-Control`` says (``max-age``, bounded to
   :data:`MAX_CACHE_S`; :data:`DEFAULT_CACHE_S` without one; never with ``no-store`` or
   ``no-cache``); failures are never cached.
"""

from __future__ import annotations

import ipaddress
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

from sevdesk_mcp.errors import UnsafeClientError
from sevdesk_mcp.http.oauth.redirects import redirect_uri_allowed

FETCH_TIMEOUT_S: Final = 5.0
MAX_DOCUMENT_BYTES: Final = 64 * 1024
MAX_URL_CHARS: Final = 2048
DEFAULT_CACHE_S: Final = 300
MAX_CACHE_S: Final = 24 * 3600
MAX_CACHED: Final = 256
_MAX_AGE: Final = re.compile(r"(?:^|,)\s*max-age\s*=\s*(\d{1,9})\s*(?:,|$)")
PUBLIC_CLIENT: Final = "none"
_JSON: Final = re.compile(r"^application/(?:[a-z0-9.+-]+\+)?json$")

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
            raise _refused("the client_id is not a valid URL") from None
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
            raise _refused(
                "a client_id URL must be https with a path, and no user, query, fragment or "
                "dot segments"
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
            raise _refused(f"fetching it took longer than {FETCH_TIMEOUT_S:g} seconds")
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
        headers = {"host": parts.netloc.rpartition("@")[2], "accept": "application/json"}
        async with (
            httpx.AsyncClient(verify=self._verify, follow_redirects=False, trust_env=False) as http,
            http.stream(
                "GET", target, headers=headers, extensions={"sni_hostname": host}
            ) as response,
        ):
            body = await _read_capped(response)
        return _validate(url, body), _max_age(response.headers.get("cache-control"))

    async def _address(self, host: str, port: int) -> str:
        try:
            infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            raise _refused(f"its host {host} does not resolve") from None
        addresses = [str(info[4][0]) for info in infos]
        if not addresses or not all(self._public(a) for a in addresses):
            raise _refused(f"its host {host} resolves to a private or special address")
        return addresses[0]

    def _public(self, address: str) -> bool:
        ip = ipaddress.ip_address(address.partition("%")[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if ip.is_loopback:
            return self._allow_loopback
        return ip.is_global and not ip.is_multicast


async def _read_capped(response: httpx.Response) -> bytes:
    if response.status_code != 200:
        raise _refused(f"it answered HTTP {response.status_code} (200 is required, no redirects)")
    media = (response.headers.get("content-type") or "").partition(";")[0].strip().lower()
    if not _JSON.match(media):
        raise _refused("it is not served as application/json")
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_DOCUMENT_BYTES:
        raise _refused(f"it is larger than {MAX_DOCUMENT_BYTES // 1024} KiB")
    body = bytearray()
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) > MAX_DOCUMENT_BYTES:
            raise _refused(f"it is larger than {MAX_DOCUMENT_BYTES // 1024} KiB")
    return bytes(body)


def _validate(url: str, body: bytes) -> CimdDocument:
    try:
        document = msgspec.json.decode(body, type=CimdDocument)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise _refused(f"the document is not valid ({_short(exc)})") from None
    if document.client_id != url:
        raise _refused("the document's client_id is not exactly the URL it was fetched from")
    if document.client_secret is not None or document.client_secret_expires_at is not None:
        raise _refused("the document holds a client secret (a public client has none)")
    if document.token_endpoint_auth_method != PUBLIC_CLIENT:
        raise _refused("only public clients (token_endpoint_auth_method none) are supported")
    if not set(document.grant_types) <= {"authorization_code", "refresh_token"}:
        raise _refused("only the authorization_code and refresh_token grants are supported")
    if document.response_types != ["code"]:
        raise _refused("only the code response type is supported")
    if not all(redirect_uri_allowed(uri) for uri in document.redirect_uris):
        raise _refused("every redirect URI must be https, or http to a loopback address")
    return document


def _max_age(cache_control: str | None) -> int:
    value = (cache_control or "").lower()
    if "no-store" in value or "no-cache" in value:
        return 0
    match = _MAX_AGE.search(value)
    return DEFAULT_CACHE_S if match is None else min(int(match.group(1)), MAX_CACHE_S)


def _short(exc: Exception) -> str:
    return str(exc).splitlines()[0][:120]


def _refused(reason: str) -> UnsafeClientError:
    return UnsafeClientError(f"The client's metadata document cannot be used: {reason}.")

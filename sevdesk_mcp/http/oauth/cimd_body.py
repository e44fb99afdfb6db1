"""Reading a metadata document's answer: status, media type, encoding, size, and what a failed
fetch tells the client's operator.

- Only ``gzip`` is offered (``Accept-Encoding``) and decoded besides no encoding; any other
  ``Content-Encoding`` is refused by name. The decoder yields at most
  :data:`MAX_DOCUMENT_BYTES` + 1 decoded bytes before the answer is refused, so a gzip bomb
  costs no more memory than a document at the cap.
- A failed connection, TLS handshake or read is a refusal naming what failed and what the
  client's operator must fix, never an internal error.
"""

from __future__ import annotations

import re
import ssl
import zlib
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Final, cast

import httpx

from sevdesk_mcp.errors import UnsafeClientError

MAX_DOCUMENT_BYTES: Final = 64 * 1024
ACCEPT_ENCODING: Final = "gzip"
_JSON: Final = re.compile(r"^application/(?:[a-z0-9.+-]+\+)?json$")
_GZIP_WBITS: Final = 16 + zlib.MAX_WBITS  # a gzip header and trailer, nothing else
_TOO_LARGE: Final = f"it is larger than {MAX_DOCUMENT_BYTES // 1024} KiB"


def refused(reason: str) -> UnsafeClientError:
    """:returns: the refusal of a metadata document for ``reason``."""
    return UnsafeClientError(f"The client's metadata document cannot be used: {reason}.")


class CappedBody:
    """The decoded body of an answer, refused past :data:`MAX_DOCUMENT_BYTES`.

    :param encoding: the answer's ``Content-Encoding`` (``""`` for none, or ``gzip``).
    :raises UnsafeClientError: for any other encoding.
    """

    def __init__(self, encoding: str) -> None:
        encoding = encoding.strip().lower()
        if encoding not in ("", "identity", ACCEPT_ENCODING):
            raise refused(f"it is sent with Content-Encoding {encoding} (gzip or none is read)")
        self._gzip = zlib.decompressobj(_GZIP_WBITS) if encoding == ACCEPT_ENCODING else None
        self._data = bytearray()
        self._trailing = False  # data after the end of the gzip stream

    @property
    def size(self) -> int:
        """:returns: how many decoded bytes were kept (at most the cap + 1)."""
        return len(self._data)

    def feed(self, chunk: bytes) -> None:
        """Add a chunk as received.

        :raises UnsafeClientError: past the cap, or if the gzip stream is broken.
        """
        if self._gzip is None:
            self._data += chunk[: MAX_DOCUMENT_BYTES + 1 - len(self._data)]
        else:
            self._inflate(chunk)
        if len(self._data) > MAX_DOCUMENT_BYTES:
            raise refused(_TOO_LARGE)

    def finish(self) -> bytes:
        """:returns: the whole decoded body.

        :raises UnsafeClientError: if a gzip stream ended early or has data after its end.
        """
        gzip = self._gzip
        if gzip is not None and (not gzip.eof or gzip.unused_data or self._trailing):
            raise refused("its gzip encoding is truncated or followed by other data")
        return bytes(self._data)

    def _inflate(self, chunk: bytes) -> None:
        gzip = self._gzip
        assert gzip is not None  # feed calls it for gzip only
        if gzip.eof:
            self._trailing = self._trailing or bool(chunk)
            return
        pending = chunk
        try:
            while pending and len(self._data) <= MAX_DOCUMENT_BYTES and not gzip.eof:
                self._data += gzip.decompress(pending, MAX_DOCUMENT_BYTES + 1 - len(self._data))
                pending = gzip.unconsumed_tail
        except zlib.error:
            raise refused("its gzip encoding is broken") from None


async def read_capped(response: httpx.Response) -> bytes:
    """:returns: the decoded body of a 200 JSON answer.

    :raises UnsafeClientError: for another status or media type, an unknown or broken
        encoding, or more than :data:`MAX_DOCUMENT_BYTES` (sent or decoded).
    """
    if response.status_code != 200:
        raise refused(f"it answered HTTP {response.status_code} (200 is required, no redirects)")
    media = (response.headers.get("content-type") or "").partition(";")[0].strip().lower()
    if not _JSON.match(media):
        raise refused("it is not served as application/json")
    length = response.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > MAX_DOCUMENT_BYTES:
        raise refused(_TOO_LARGE)
    body = CappedBody(response.headers.get("content-encoding", ""))
    raw = cast("AsyncGenerator[bytes, None]", response.aiter_raw())
    async with aclosing(raw) as chunks:  # closed at once when a chunk is refused
        async for chunk in chunks:
            body.feed(chunk)
    return body.finish()


def fetch_failure(exc: httpx.HTTPError, host: str, port: int) -> str:
    """:returns: what failed in a fetch from ``host``, and what the client's operator must fix."""
    tls = _tls_cause(exc)
    if isinstance(tls, ssl.SSLCertVerificationError):
        return (
            f"the TLS certificate of {host} is not trusted ({tls.verify_message}); the client's "
            "operator must serve the document with a certificate from a public certificate "
            "authority (or this server's operator names its authority in "
            "SEVDESK_HTTP_OAUTH_CA_FILE)"
        )
    if tls is not None:
        return (
            f"the TLS handshake with {host}:{port} failed; the client's operator must serve the "
            "document over https"
        )
    if isinstance(exc, httpx.TimeoutException):
        return f"{host}:{port} did not answer in time"
    if isinstance(exc, httpx.ConnectError):
        return (
            f"the connection to {host}:{port} failed (refused or unreachable); the client's "
            "operator must serve the document at its client_id URL"
        )
    return (
        f"the connection to {host}:{port} broke off while reading it; the client's operator "
        "must serve the complete document"
    )


def _tls_cause(exc: BaseException) -> ssl.SSLError | None:
    seen: BaseException | None = exc
    for _ in range(8):  # httpx wraps httpcore, which wraps the ssl module's error
        if seen is None or isinstance(seen, ssl.SSLError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def document_trust(ca_pem: str | None) -> ssl.SSLContext:
    """:returns: the TLS context of metadata-document fetches: certifi's authorities, as
    httpx verifies by default (the environment is not read), and those of
    ``SEVDESK_HTTP_OAUTH_CA_FILE`` (``ca_pem``, checked at start-up)."""
    context = httpx.create_ssl_context(trust_env=False)
    if ca_pem is not None:
        context.load_verify_locations(cadata=ca_pem)
    return context

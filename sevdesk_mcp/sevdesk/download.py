"""Downloads of export files from the link sevDesk hands out (DATEV jobs, §2.9).

The link is not sevDesk's API: it points at sevDesk's export file storage. It is followed only
when it is ``https`` to that one host (:data:`ALLOWED_HOST`), carries no credentials, no port
and no fragment; the request sends no ``Authorization`` (the API token never leaves for another
host), follows no redirect, ignores proxy settings from the environment, and stops reading at
the size cap. Anything else is refused with :class:`~sevdesk_mcp.errors.DownloadRefusedError`
before or while reading; nothing partial is returned.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from contextlib import aclosing
from contextvars import ContextVar
from typing import TYPE_CHECKING, Final, cast
from urllib.parse import urlsplit

from sevdesk_mcp.errors import DownloadRefusedError, UnavailableError, UpstreamError
from sevdesk_mcp.sevdesk.client import USER_AGENT

if TYPE_CHECKING:
    import httpx

ALLOWED_HOST: Final = re.compile(
    r"^sevexport-filestorage[a-z0-9-]{0,40}\.s3(?:[.-][a-z0-9-]{1,30}){0,3}\.amazonaws\.com$"
)
"""sevDesk's export file storage (``sevexport-filestorage-…`` on S3, §2.9); nothing else."""
MAX_DOWNLOAD_BYTES: Final = 100 * 1024 * 1024
TIMEOUT_S: Final = 60.0
_CHUNK: Final = 64 * 1024


def check_link(url: str) -> str:
    """:returns: the host of ``url`` if the link may be followed.

    :raises DownloadRefusedError: naming what is wrong with the link.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise DownloadRefusedError(
            "The download link sevDesk gave is malformed; download the export in sevDesk itself."
        ) from None
    host = (parts.hostname or "").lower()
    if parts.username is not None or parts.password is not None:
        raise DownloadRefusedError(
            f"The download link to {host or 'an unknown host'} carries credentials; it was not "
            "followed. Download the export in sevDesk itself."
        )
    if parts.scheme != "https" or port not in (None, 443) or parts.fragment:
        raise DownloadRefusedError(
            f"The download link is not a plain https link (scheme {parts.scheme or 'none'}); "
            "it was not followed. Download the export in sevDesk itself."
        )
    if not ALLOWED_HOST.match(host):
        raise DownloadRefusedError(
            f"The download link points to {host or 'no host'}, not to sevDesk's export file "
            "storage; it was not followed. Download the export in sevDesk itself."
        )
    return host


FILE_TRANSPORT: ContextVar[httpx.AsyncBaseTransport | None] = ContextVar(
    "sevdesk_file_transport", default=None
)
"""Where export downloads go when the caller names no transport: the network unless set (the
command line sets the demo books' file storage in demo mode)."""


async def fetch(
    url: str,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    max_bytes: int = MAX_DOWNLOAD_BYTES,
) -> bytes:
    """Download the file behind ``url``.

    :param transport: an httpx transport (a fake's in tests); by default
        :data:`FILE_TRANSPORT`'s, which demo mode sets to the demo books' storage, else the
        network.
    :returns: the file's bytes.
    :raises DownloadRefusedError: for a link that may not be followed, a redirect, or a file
        over ``max_bytes``.
    :raises UpstreamError: if the storage cannot be reached or does not answer 200.
    """
    import httpx  # noqa: PLC0415 - imported with the first download, not at start-up

    host = check_link(url)
    try:
        async with (
            httpx.AsyncClient(
                transport=transport or FILE_TRANSPORT.get(),
                follow_redirects=False,
                trust_env=False,
                timeout=httpx.Timeout(TIMEOUT_S, connect=10.0),
                headers={"User-Agent": USER_AGENT},
            ) as http,
            http.stream("GET", url) as response,
        ):
            _check_status(response, host)
            _check_declared(response, host, max_bytes)
            return await _read_capped(response, host, max_bytes)
    except httpx.HTTPError as exc:
        raise UnavailableError(
            f"The export file could not be downloaded from {host} ({type(exc).__name__}). "
            "Try again in a minute; the link stays valid for a while."
        ) from None


def _check_status(response: httpx.Response, host: str) -> None:
    if response.is_redirect or 300 <= response.status_code < 400:
        raise DownloadRefusedError(
            f"The export file storage at {host} answered with a redirect "
            f"({response.status_code}); it was not followed. Download the export in sevDesk "
            "itself."
        )
    if response.status_code != 200:
        raise UpstreamError(
            f"The export file storage at {host} answered {response.status_code}; the link may "
            "have expired. Start the export again."
        )


def _check_declared(response: httpx.Response, host: str, cap: int) -> None:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise _too_large(host, cap)


async def _read_capped(response: httpx.Response, host: str, cap: int) -> bytes:
    data = bytearray()
    stream = cast("AsyncGenerator[bytes, None]", response.aiter_bytes(_CHUNK))
    async with aclosing(stream) as chunks:
        async for chunk in chunks:
            data.extend(chunk)
            if len(data) > cap:
                raise _too_large(host, cap)
    return bytes(data)


def _too_large(host: str, cap: int) -> DownloadRefusedError:
    return DownloadRefusedError(
        f"The export file at {host} is larger than {cap // (1024 * 1024)} MiB, the cap for "
        "downloads; nothing was saved. Export a shorter period, or download it in sevDesk."
    )

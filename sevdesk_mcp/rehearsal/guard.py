"""The guard: the only way from a rehearsal to sevDesk, and it lets known plain reads only.

The guard is an allow-list. A request goes upstream only when it is a ``GET`` without a body
whose path is made of API words and ids (:func:`~sevdesk_mcp.sevdesk.paths.check_path`) and is
a GET of the server's endpoint table (:func:`~sevdesk_mcp.sevdesk.endpoints.find`, in exact
case), whose query repeats no key, and which
:func:`~sevdesk_mcp.sevdesk.paths.minimum_tier` classes as a plain read (not a ``getPdf``
without ``preventSendBy``, not a ``SevSequence/Factory/getByType`` that reserves a number, not
an export job that enshrines). Anything else is refused before a byte is sent, and counted.
"""

from __future__ import annotations

import httpx

from sevdesk_mcp.errors import RehearsalRefusedError, WriteRefusedError
from sevdesk_mcp.fake.transport import api_path
from sevdesk_mcp.sevdesk.endpoints import find
from sevdesk_mcp.sevdesk.paths import check_path, minimum_tier


def is_read(request: httpx.Request) -> bool:
    """:returns: whether ``request`` is a GET that changes nothing by its method, words and
    query (:func:`~sevdesk_mcp.sevdesk.paths.minimum_tier`); the guard asks more."""
    if request.method != "GET":
        return False
    query = dict(request.url.params.multi_items())
    return minimum_tier("GET", api_path(request.url.path), query, None) is None


def is_plain_read(request: httpx.Request) -> bool:
    """:returns: whether ``request`` is a known plain read (the guard's rule, see the module)."""
    path = api_path(request.url.path)
    if request.url.raw_path.split(b"?")[0].decode("ascii", "replace") != request.url.path:
        return False  # a percent-encoded path: what is sent is not what was classified
    try:
        check_path(path)
    except WriteRefusedError:
        return False
    keys = [key for key, _ in request.url.params.multi_items()]
    return (
        is_read(request)
        and find("GET", path) is not None
        and len(keys) == len(set(keys))
        and not _has_body(request)
    )


def _has_body(request: httpx.Request) -> bool:
    """:returns: whether ``request`` carries a body (httpx sets one of these for any)."""
    headers = request.headers
    return "transfer-encoding" in headers or headers.get("content-length", "0").strip() != "0"


class Guard(httpx.AsyncBaseTransport):
    """Sends known plain reads to ``real``; refuses everything else.

    :param real: the transport to the real account.
    """

    def __init__(self, real: httpx.AsyncBaseTransport) -> None:
        self._real = real
        self.refused = 0
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the real account's answer to a known plain read.

        :raises RehearsalRefusedError: for any other request; nothing was sent.
        """
        if not is_plain_read(request):
            self.refused += 1
            raise RehearsalRefusedError(
                f"Refused {request.method} {api_path(request.url.path)}: a rehearsal never "
                "writes to sevDesk and reads only the endpoints the server knows (one GET of "
                "its endpoint table, no body, no repeated query key); a change goes to the "
                "rehearsal's overlay only."
            )
        return await self._real.handle_async_request(request)

    async def aclose(self) -> None:
        """Close the real transport (once; a second call does nothing)."""
        if self._closed:
            return
        self._closed = True
        await self._real.aclose()

"""The export file storage of a rehearsal: the file of a DATEV job the overlay ran comes from
the overlay (it exists nowhere else), any other download goes to the real storage."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from sevdesk_mcp.fake.core import FakeSevdesk
from sevdesk_mcp.fake.exports import STORAGE_HOST, FileStorage, exports_of


class RehearsalFiles(httpx.AsyncBaseTransport):
    """Serves the overlay's export files, and passes every other download to ``real``.

    :param engine: gives the overlay's engine (``None`` before the rehearsal's first request).
    :param real: the real export storage (the network's, or the demo books').
    """

    def __init__(
        self, engine: Callable[[], FakeSevdesk | None], real: httpx.AsyncBaseTransport
    ) -> None:
        self._engine = engine
        self._real = real

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """:returns: the overlay's file for a link of a job it ran, else the real answer.

        :raises httpx.HTTPError: when the real storage cannot be reached.
        """
        engine = self._engine()
        ours = engine is not None and request.url.host == STORAGE_HOST
        if engine is not None and ours and request.url.path in exports_of(engine.store).files:
            return await FileStorage(engine.store).handle_async_request(request)
        return await self._real.handle_async_request(request)

    async def aclose(self) -> None:
        """Close the real storage's transport."""
        await self._real.aclose()

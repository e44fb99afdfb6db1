"""Shutdown state shared by the server, its connections and the routes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio


class Lifecycle:
    """Shutdown state shared by the server, its connections and the routes.

    :ivar draining: set on shutdown: health checks fail, connections close after their request.
    :ivar active: requests being handled right now.
    """

    def __init__(self) -> None:
        self.draining = False
        self.active = 0
        self._idle: anyio.Event | None = None

    @contextmanager
    def handling(self) -> Iterator[None]:
        """Count one request as active while the block runs."""
        self.active += 1
        try:
            yield
        finally:
            self.active -= 1
            if not self.active and self._idle is not None:
                self._idle.set()

    async def drain(self, grace_s: float) -> None:
        """Start shutting down; return when no request is active or ``grace_s`` has passed."""
        self.draining = True
        self._idle = anyio.Event()
        if self.active:
            with anyio.move_on_after(grace_s):
                await self._idle.wait()

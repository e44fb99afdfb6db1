"""Shutdown state shared by the server, its connections and the routes."""

from __future__ import annotations

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

    def handling(self) -> Handling:
        """:returns: a context that counts one request as active while its block runs."""
        return Handling(self)

    def start(self) -> None:
        """Count one request as active."""
        self.active += 1

    def finish(self) -> None:
        """Count one request less as active; the last one wakes a waiting :meth:`drain`."""
        self.active -= 1
        if not self.active and self._idle is not None:
            self._idle.set()

    async def idle(self, limit_s: float) -> None:
        """Return when no request is active or ``limit_s`` has passed (after :meth:`drain`)."""
        if self.active and self._idle is not None:
            with anyio.move_on_after(limit_s):
                await self._idle.wait()

    async def drain(self, grace_s: float) -> None:
        """Start shutting down; return when no request is active or ``grace_s`` has passed."""
        self.draining = True
        self._idle = anyio.Event()
        if self.active:
            with anyio.move_on_after(grace_s):
                await self._idle.wait()


class Handling:
    """One request counted as active (a class, not a generator: it is entered on every
    request)."""

    __slots__ = ("_lifecycle",)

    def __init__(self, lifecycle: Lifecycle) -> None:
        self._lifecycle = lifecycle

    def __enter__(self) -> None:
        self._lifecycle.start()

    def __exit__(self, *exc_info: object) -> None:
        self._lifecycle.finish()

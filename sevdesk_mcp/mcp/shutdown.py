"""Stopping a server: one grace period for every transport, then a hard stop that even a
shielded write obeys.

A transport that is told to stop (stdio: SIGTERM, SIGINT or end of stdin; HTTP: SIGTERM or
SIGINT) takes no new requests and gives the running ones :data:`SHUTDOWN_GRACE_S` to finish.
Then it *forces* the stop and cancels what still runs.

Work that must not be abandoned half-made (a write already on its way upstream) runs in a
shielded cancel scope, which ordinary cancellation cannot reach. Such work registers the
deadline scope inside its shield with :func:`bounded_by_shutdown`; the forced stop cancels that
scope too, so the work ends within the grace and can record its outcome as unknown before the
process exits; a transport that can still answer (HTTP) then gives such calls :data:`ANSWER_S`
to send that result to their clients before it closes the connections. Without it, the shield
kept the process alive until the upstream answered or its own timeouts fired.

The transport hands its :class:`Shutdown` to the tasks it starts through a context variable
(:func:`serving`), so nothing between the transport and the write flow needs to pass it on.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

import anyio

SHUTDOWN_GRACE_S: Final = 10.0
ANSWER_S: Final = 6.0  # longer than a record lock's release (5 s), which comes first
"""After the forced stop, how long the calls it ended have to answer their clients (a write
ended as ``outcome_unknown`` says so on its open response) before the connections close."""

_current: ContextVar[Shutdown | None] = ContextVar("sevdesk_mcp_shutdown", default=None)


class Shutdown:
    """The stop of one server, shared with the tasks it serves.

    :ivar forced: whether the grace is over; scopes bound from now on are cancelled at once.
    """

    def __init__(self) -> None:
        self.forced = False
        self._scopes: set[anyio.CancelScope] = set()

    def force(self) -> None:
        """End the grace: cancel every bound scope, now and from now on."""
        self.forced = True
        for scope in list(self._scopes):
            scope.cancel()

    @contextmanager
    def bound(self, scope: anyio.CancelScope) -> Iterator[None]:
        """Cancel ``scope`` when the stop is forced, while the block runs."""
        if self.forced:
            scope.cancel()
        self._scopes.add(scope)
        try:
            yield
        finally:
            self._scopes.discard(scope)


@contextmanager
def serving(shutdown: Shutdown) -> Iterator[None]:
    """Make ``shutdown`` the stop that tasks started inside the block obey."""
    token = _current.set(shutdown)
    try:
        yield
    finally:
        _current.reset(token)


def stop_forced() -> bool:
    """:returns: whether the server that runs this task has forced its stop (a scope bound
    by :func:`bounded_by_shutdown` was cancelled by it, not by its own deadline)."""
    shutdown = _current.get()
    return shutdown is not None and shutdown.forced


@contextmanager
def bounded_by_shutdown(scope: anyio.CancelScope) -> Iterator[None]:
    """Cancel ``scope`` when the server that runs this task forces its stop.

    Meant for a scope inside a shield, which the server's ordinary cancellation cannot reach.
    Outside a serving transport (a test calling a tool directly) it does nothing.
    """
    shutdown = _current.get()
    if shutdown is None:
        yield
        return
    with shutdown.bound(scope):
        yield

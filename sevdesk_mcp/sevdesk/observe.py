"""Who watches the requests of one tool call: a context variable the caller sets around the
call, so progress and debug logs reach the client without the domain passing anything along.

Tasks started inside the call (concurrent reads) inherit it; a call without an observer costs
one context-variable lookup per request.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class Observer(Protocol):
    """Told about every request of a tool call to sevDesk, as it is answered."""

    async def answered(self, method: str, path: str) -> None:
        """One request (``path`` without its query) got its answer."""
        ...

    async def listed(self, path: str, read: int, total: int | None) -> None:
        """A page of the list at ``path`` arrived: ``read`` items so far, of ``total`` if known."""
        ...


OBSERVER: ContextVar[Observer | None] = ContextVar("sevdesk_observer", default=None)


@contextmanager
def observed(observer: Observer) -> Iterator[None]:
    """Let ``observer`` watch every request made inside the block (and its tasks)."""
    token = OBSERVER.set(observer)
    try:
        yield
    finally:
        OBSERVER.reset(token)

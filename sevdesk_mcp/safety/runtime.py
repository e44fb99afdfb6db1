"""The safety runtime: confirmation nonces, browser approvals and the audit log, one per server
factory.

Every server instance the factory builds (in OAuth mode one per request over HTTP) shares it,
so a nonce issued in one request can be consumed in the next, exactly once, and an approval
given on the local page is found by the retry. The approval pages are started on first use
(``SEVDESK_CONFIRM=browser``), by the ``pages`` callable the composition root wires in (``cli``:
the HTTP stack's page listener).

The nonces, approvals and record locks are seams: the defaults keep them in this process; with
the shared state (several HTTP instances) the composition root injects the Redis stores
(:mod:`sevdesk_mcp.safety.nonces_redis`, :mod:`sevdesk_mcp.safety.approvals_redis`).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol

from sevdesk_mcp.safety.approvals import ApprovalStore, MemoryApprovalStore
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.locks import LockStore, RecordLocks
from sevdesk_mcp.safety.open_url import open_url

if TYPE_CHECKING:
    from sevdesk_mcp.safety.approval_local import Pages

NONCE_TTL_S: Final = 600.0
MAX_NONCES: Final = 10_000
NONCE_BYTES: Final = 16


class NonceStore(Protocol):
    """Single-use nonces of sealed request states, with a lifetime of :data:`NONCE_TTL_S`."""

    async def issue(self) -> str:
        """:returns: a new nonce, valid for 10 minutes.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...

    async def consume(self, nonce: object) -> bool:
        """:returns: whether ``nonce`` was issued, unexpired and unused; it is used up now
        (once, also when two instances consume it at the same moment).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...


class MemoryNonceStore:
    """The nonces of one process; the oldest are dropped beyond :data:`MAX_NONCES`."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, *, ttl_s: float = NONCE_TTL_S
    ) -> None:
        self._clock = clock
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        self._expiry: OrderedDict[str, float] = OrderedDict()

    async def issue(self) -> str:
        """See :meth:`NonceStore.issue`."""
        nonce = secrets.token_urlsafe(NONCE_BYTES)
        with self._lock:
            self._expiry[nonce] = self._clock() + self._ttl_s
            while len(self._expiry) > MAX_NONCES:
                self._expiry.popitem(last=False)
        return nonce

    async def consume(self, nonce: object) -> bool:
        """See :meth:`NonceStore.consume`."""
        if not isinstance(nonce, str):
            return False
        with self._lock:
            expiry = self._expiry.pop(nonce, None)
        return expiry is not None and expiry >= self._clock()


class SafetyRuntime:
    """What every write shares: nonces, browser approvals, record locks and the audit log.

    :param nonces: the nonce store (this process's by default).
    :param approvals: the approval store (this process's by default).
    :param locks: the record locks (:class:`~sevdesk_mcp.safety.locks.LockStore`; this
        process's by default).
    :param pages: returns the started approval pages (the composition root passes the process's
        shared pages; without it browser approval fails with :class:`PageServerError`).
    :param opener: opens a page link in the user's browser; returns whether it could.
    """

    def __init__(  # noqa: PLR0913 - every store is a seam
        self,
        audit: AuditLog,
        nonces: NonceStore | None = None,
        *,
        approvals: ApprovalStore | None = None,
        locks: LockStore | None = None,
        pages: Callable[[], Pages] | None = None,
        opener: Callable[[str], bool] = open_url,
    ) -> None:
        self.audit = audit
        self.nonces: NonceStore = nonces if nonces is not None else MemoryNonceStore()
        self.approvals: ApprovalStore = (
            approvals if approvals is not None else MemoryApprovalStore()
        )
        self.locks: LockStore = locks if locks is not None else RecordLocks()
        self.opener = opener
        self._pages_factory = pages
        self._pages: Pages | None = None

    def approval_pages(self) -> Pages:
        """:returns: the approval pages serving this runtime's approvals, started on first use.

        :raises PageServerError: if no page listener is wired in or it cannot listen.
        """
        if self._pages is None:
            if self._pages_factory is None:  # imported only when browser approval is used
                from sevdesk_mcp.safety.approval_local import (  # noqa: PLC0415
                    NOT_WIRED,
                    PageServerError,
                )

                raise PageServerError(NOT_WIRED)
            pages = self._pages_factory()
            pages.site.attach(self.approvals)
            self._pages = pages
        return self._pages

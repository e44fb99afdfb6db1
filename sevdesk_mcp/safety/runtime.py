"""The safety runtime: confirmation nonces, browser approvals and the audit log, one per server
factory.

Every server instance the factory builds (in OAuth mode one per request over HTTP) shares it,
so a nonce issued in one request can be consumed in the next, exactly once, and an approval
given on the local page is found by the retry. The approval pages are started on first use
(``SEVDESK_CONFIRM=browser``), by the ``pages`` callable the composition root wires in (``cli``:
the HTTP stack's page listener).

The nonces, approvals and record locks are seams: the defaults keep them in this process; with
the shared state (several HTTP instances) the composition root injects the Redis stores
(:mod:`sevdesk_mcp.safety.nonces_redis`, :mod:`sevdesk_mcp.safety.approvals_redis`); the
nonces' seam is :mod:`sevdesk_mcp.safety.nonces`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sevdesk_mcp.safety.approvals import ApprovalStore, MemoryApprovalStore
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.locks import LockStore, RecordLocks
from sevdesk_mcp.safety.nonces import MemoryNonceStore, NonceStore
from sevdesk_mcp.safety.open_url import open_url

if TYPE_CHECKING:
    from sevdesk_mcp.safety.approval_local import Pages


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

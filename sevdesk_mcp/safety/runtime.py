"""The safety runtime: confirmation nonces, browser approvals and the audit log, one per server
factory.

Every server instance the factory builds (one per request over HTTP) shares it, so a nonce issued
in one request can be consumed in the next, exactly once, and an approval given on the local page
is found by the retry. The approval pages are started on first use (``SEVDESK_CONFIRM=browser``),
by the ``pages`` callable the composition root wires in (``cli``: the HTTP stack's page listener).
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from sevdesk_mcp.safety.approvals import ApprovalStore
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.locks import RecordLocks
from sevdesk_mcp.safety.open_url import open_url

if TYPE_CHECKING:
    from sevdesk_mcp.safety.approval_local import Pages

NONCE_TTL_S: Final = 600.0
MAX_NONCES: Final = 10_000


class NonceStore:
    """Single-use nonces with a lifetime; the oldest are dropped beyond :data:`MAX_NONCES`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._expiry: OrderedDict[str, float] = OrderedDict()

    def issue(self) -> str:
        """:returns: a new nonce, valid for 10 minutes."""
        nonce = secrets.token_urlsafe(16)
        self._expiry[nonce] = self._clock() + NONCE_TTL_S
        while len(self._expiry) > MAX_NONCES:
            self._expiry.popitem(last=False)
        return nonce

    def consume(self, nonce: object) -> bool:
        """:returns: whether ``nonce`` was issued, unexpired and unused; it is used up now."""
        if not isinstance(nonce, str):
            return False
        expiry = self._expiry.pop(nonce, None)
        return expiry is not None and expiry >= self._clock()


class SafetyRuntime:
    """What every write shares: nonces, browser approvals, record locks and the audit log.

    :param pages: returns the started approval pages (the composition root passes the process's
        shared pages; without it browser approval fails with :class:`PageServerError`).
    :param opener: opens a page link in the user's browser; returns whether it could.
    """

    def __init__(
        self,
        audit: AuditLog,
        nonces: NonceStore | None = None,
        *,
        approvals: ApprovalStore | None = None,
        pages: Callable[[], Pages] | None = None,
        opener: Callable[[str], bool] = open_url,
    ) -> None:
        self.audit = audit
        self.nonces = nonces or NonceStore()
        self.approvals = approvals or ApprovalStore()
        self.locks = RecordLocks()
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

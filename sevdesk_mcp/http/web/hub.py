"""What the pages share: the site, the sessions, the sevDesk identity check, the approval stores
of the inbox and the file store; made by the composition root before the server binds.

Every store is injectable: by default each lives in this process; with the shared state of
several instances the composition root passes the Redis ones (``approvals_redis``,
``transfers_redis``, ``sessions_redis``, ``attempts_redis``) and a sign-in key derived from
the server secret, so a page served by one instance and its form posted to another agree."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from typing import Final, TypeVar
from urllib.parse import urlsplit

from sevdesk_mcp.http.oauth.core import Identify, Identity
from sevdesk_mcp.http.settings import Site
from sevdesk_mcp.http.web.attempts import Attempts, MemoryAttempts
from sevdesk_mcp.http.web.persons import Persons, persons_of
from sevdesk_mcp.http.web.sessions import SessionStore
from sevdesk_mcp.safety.approval_local import ApprovalStores, Pages
from sevdesk_mcp.safety.approvals import ApprovalStore
from sevdesk_mcp.safety.redact import Secret
from sevdesk_mcp.safety.transfers import Caller, Limits, MemoryTransferStore, Owner, TransferStore

NOT_BOUND: Final = "The web pages are used before the server was bound."
T = TypeVar("T")


class _PublicListener:
    """The inbox is served on the main listener: nothing to start."""

    def __init__(self, site: Site) -> None:
        self.host = urlsplit(site.public_url).netloc

    def start(self) -> str:
        return self.host


class WebHub:
    """The pages' shared state.

    :param files: whether file transfer is on (``SEVDESK_HTTP_FILES``).
    :param inbox: whether approvals wait in the inbox (``SEVDESK_CONFIRM=browser``).
    :param limits: the file store's limits (when it is made here).
    :param approvals: the shared approval store the inbox serves besides those the safety
        runtimes attach (the same object the runtime gets).
    :param transfers: the file store (this process's by default; ignored when ``files`` is off).
    :param sessions: the browser sessions (this process's by default).
    :param attempts: the sign-in attempts (this process's by default).
    :param signin_key: the key of the sign-in form's CSRF token (drawn for this process by
        default; with the shared state, the server secret's ``derived_key(secret, "signin")``).
    """

    def __init__(  # noqa: PLR0913 - every store is a seam
        self,
        *,
        files: bool = True,
        inbox: bool = True,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.time,
        approvals: ApprovalStore | None = None,
        transfers: TransferStore | None = None,
        sessions: SessionStore | None = None,
        attempts: Attempts | None = None,
        signin_key: bytes | None = None,
    ) -> None:
        self.files = files
        self.inbox = inbox
        self.approvals = ApprovalStores(approvals)
        self.transfers: TransferStore | None = None
        if files:
            self.transfers = transfers or MemoryTransferStore(limits, clock)
        self.attempts: Attempts = attempts or MemoryAttempts()
        self.sessions = sessions or SessionStore(clock=clock)
        self._key = signin_key or secrets.token_bytes(32)
        self._site: Site | None = None
        self._identify: Identify | None = None
        self._persons: Persons | None = None

    def bind(self, site: Site, identify: Identify, secret: Secret) -> None:
        """Learn the site's public URL, how to ask sevDesk who a token belongs to, and the
        server secret (``SEVDESK_HTTP_SECRET``) persons are fingerprinted under."""
        self._site = site
        self._identify = identify
        self._persons = persons_of(secret)
        self.sessions.https = site.https

    @property
    def site(self) -> Site:
        """:returns: the bound site.

        :raises RuntimeError: before :meth:`bind`.
        """
        return _bound(self._site)

    @property
    def identify(self) -> Identify:
        """:returns: the identity lookup (``GET /SevClient``).

        :raises RuntimeError: before :meth:`bind`.
        """
        return _bound(self._identify)

    @property
    def persons(self) -> Persons:
        """:returns: the fingerprints of sevDesk tokens (who a person is).

        :raises RuntimeError: before :meth:`bind`.
        """
        return _bound(self._persons)

    def pages(self) -> Pages:
        """:returns: the approval pages of HTTP mode: the inbox (the safety runtime attaches
        its store; the tool result names the inbox address)."""
        site = self.site
        return Pages(self.approvals, _PublicListener(site), inbox=f"{site.public_url}/approvals")

    def start_session(self, identity: Identity, token: Secret) -> str:
        """:returns: the ``Set-Cookie`` value of a new session of the person holding ``token``
        (just checked with sevDesk) in ``identity``'s account (after the OAuth consent, or a
        sign-in).

        :raises RuntimeError: before :meth:`bind`.
        """
        person = self.persons.of(token)
        return self.sessions.set_cookie(self.sessions.start(identity.id, identity.name, person))

    def caller(self, principal: str, account: str, person: str) -> Caller | None:
        """:returns: what a tool call of ``principal`` (for ``person``) may transfer, or
        ``None`` when file transfer is off.

        :raises RuntimeError: before :meth:`bind`.
        """
        if self.transfers is None:
            return None
        return Caller(self.transfers, Owner(principal, account, person), self.site.public_url)

    def mac(self, value: str) -> str:
        """:returns: the CSRF token of the sign-in cookie ``value``."""
        return hmac.new(self._key, value.encode(), hashlib.sha256).hexdigest()


def _bound(part: T | None) -> T:
    """:returns: a part :meth:`WebHub.bind` sets.

    :raises RuntimeError: before :meth:`WebHub.bind`.
    """
    if part is None:
        raise RuntimeError(NOT_BOUND)
    return part

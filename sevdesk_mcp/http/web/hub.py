"""What the pages share: the site, the sessions, the sevDesk identity check, the approval stores
of the inbox and the file store; made by the composition root before the server binds."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Final
from urllib.parse import urlsplit

from sevdesk_mcp.http.auth import oauth_account
from sevdesk_mcp.http.oauth.core import Identify, Identity
from sevdesk_mcp.http.settings import Site
from sevdesk_mcp.safety.approval_local import ApprovalStores, Pages
from sevdesk_mcp.safety.transfers import Caller, Limits, Owner, TransferStore

SIGNIN_ATTEMPTS: Final = 5
SIGNIN_WINDOW_S: Final = 300.0
MAX_TRACKED: Final = 4096
NOT_BOUND: Final = "The web pages are used before the server was bound."


class Attempts:
    """Sign-in attempts per client address: at most :data:`SIGNIN_ATTEMPTS` in
    :data:`SIGNIN_WINDOW_S`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def allow(self, client: str) -> bool:
        """:returns: whether ``client`` may try once more (the try is counted)."""
        now = self._clock()
        with self._lock:
            times = self._seen.pop(client, deque())
            while times and times[0] <= now - SIGNIN_WINDOW_S:
                times.popleft()
            allowed = len(times) < SIGNIN_ATTEMPTS
            if allowed:
                times.append(now)
            self._seen[client] = times
            while len(self._seen) > MAX_TRACKED:
                self._seen.popitem(last=False)
            return allowed


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
    """

    def __init__(
        self,
        *,
        files: bool = True,
        inbox: bool = True,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        from sevdesk_mcp.http.web.sessions import SessionStore  # noqa: PLC0415 - small

        self.files = files
        self.inbox = inbox
        self.approvals = ApprovalStores()
        self.transfers = TransferStore(limits, clock) if files else None
        self.attempts = Attempts()
        self.sessions = SessionStore(clock=clock)
        self._key = secrets.token_bytes(32)
        self._site: Site | None = None
        self._identify: Identify | None = None

    def bind(self, site: Site, identify: Identify) -> None:
        """Learn the site's public URL and how to ask sevDesk who a token belongs to."""
        self._site = site
        self._identify = identify
        self.sessions.https = site.https

    @property
    def site(self) -> Site:
        """:returns: the bound site.

        :raises RuntimeError: before :meth:`bind`.
        """
        if self._site is None:
            raise RuntimeError(NOT_BOUND)
        return self._site

    @property
    def identify(self) -> Identify:
        """:returns: the identity lookup (``GET /SevClient``).

        :raises RuntimeError: before :meth:`bind`.
        """
        if self._identify is None:
            raise RuntimeError(NOT_BOUND)
        return self._identify

    def pages(self) -> Pages:
        """:returns: the approval pages of HTTP mode: the inbox (the safety runtime attaches
        its store; the tool result names the inbox address)."""
        site = self.site
        return Pages(self.approvals, _PublicListener(site), inbox=f"{site.public_url}/approvals")

    def start_session(self, identity: Identity) -> str:
        """:returns: the ``Set-Cookie`` value of a new session of ``identity``'s account (after
        the OAuth consent, or a sign-in)."""
        return self.sessions.set_cookie(self.sessions.start(identity.id, identity.name))

    def caller(self, principal: str, account: str) -> Caller | None:
        """:returns: what a tool call of ``principal`` may transfer, or ``None`` when file
        transfer is off."""
        if self.transfers is None:
            return None
        return Caller(self.transfers, Owner(principal, account), self.site.public_url)

    def mac(self, value: str) -> str:
        """:returns: the CSRF token of the sign-in cookie ``value``."""
        return hmac.new(self._key, value.encode(), hashlib.sha256).hexdigest()


def account_of(principal: str) -> str | None:
    """:returns: the sevDesk account of an OAuth principal (``oauth:<account>:<grant>``)."""
    return oauth_account(principal)

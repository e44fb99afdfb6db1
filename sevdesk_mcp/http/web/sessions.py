"""Browser sessions of a sevDesk account, for the inbox and the file pages.

A session starts when the user consents on the OAuth consent page, or signs in on ``/signin``
with their sevDesk API token (checked with ``GET /SevClient``). It lives for
:data:`SESSION_TTL_S` (12 hours) or until the user signs out.

The session travels sealed in its cookie: its id, the account and its name, the person (the
keyed fingerprint of the sevDesk token it was started with, :mod:`~sevdesk_mcp.http.web.persons`:
the pages show and decide only that person's approvals and files), the CSRF token and the
expiry, sealed with AES-256-GCM (so it cannot be forged, changed or read). The key is drawn
per process by default (a restart ends every session); with the shared state of several
instances every instance derives it from the server secret
(:func:`~sevdesk_mcp.shared.seal.derived_key`), so any instance opens any cookie. Starting a
session therefore stores nothing (the consent page starts one synchronously); signing out
records the session id in :class:`SignOuts` until the session would have expired: this
process's memory (:class:`MemorySignOuts`), or the shared state (``sessions_redis``), where one
instance's sign-out ends the session on all of them. Which cookie carries a session and how
long a sign-out is kept is decided once, in :mod:`~sevdesk_mcp.http.web.session_table`; the
sign-outs only keep a session id for a time and answer whether it is still there.

The cookie is ``SameSite=Strict``, ``HttpOnly``, ``Path=/``; ``__Host-`` and ``Secure`` over
https. Every form of a session carries its CSRF token (256 bits, compared in constant time).
"""

from __future__ import annotations

import base64
import binascii
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from typing import ClassVar, Final, Protocol

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from sevdesk_mcp.http.kit.forms import cookie, cookie_attributes
from sevdesk_mcp.http.messages import Headers
from sevdesk_mcp.http.web import session_table as table
from sevdesk_mcp.safety.redact import Undisclosed

SESSION_TTL_S: Final = 12 * 3600
MAX_SIGNOUTS: Final = 100_000
COOKIE: Final = "sevdesk_session"
SECURE_COOKIE: Final = "__Host-sevdesk_session"
_AD: Final = b"sevdesk-web-session-v2"


class Session(Undisclosed, msgspec.Struct, frozen=True):
    """One signed-in browser: the account, its name for the page, the CSRF token and the
    person (empty in a cookie from before persons: such a session owns nothing)."""

    HIDDEN: ClassVar[frozenset[str]] = frozenset({"id", "csrf"})  # credentials

    id: str
    account: str
    account_name: str
    csrf: str
    expires: float
    person: str = ""


class SignOuts(Protocol):
    """The sessions signed out before their expiry, this process's or the shared state's; it
    decides nothing (how long one is kept comes from
    :func:`~sevdesk_mcp.http.web.session_table.keep_s`)."""

    async def keep(self, session_id: str, ttl_s: float) -> None:
        """Record that ``session_id`` is signed out, for ``ttl_s`` seconds.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...

    async def has(self, session_id: str) -> bool:
        """:returns: whether ``session_id``'s sign-out is still kept.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...


class MemorySignOuts:
    """The sign-outs of one process (:class:`SignOuts`); beyond :data:`MAX_SIGNOUTS` the ones
    no longer kept are dropped.

    :param clock: seconds since the epoch (injectable for tests).
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._until: dict[str, float] = {}

    async def keep(self, session_id: str, ttl_s: float) -> None:
        """See :meth:`SignOuts.keep`."""
        with self._lock:
            now = self._clock()
            if len(self._until) >= MAX_SIGNOUTS:
                self._until = {k: v for k, v in self._until.items() if v > now}
            self._until[session_id] = now + ttl_s

    async def has(self, session_id: str) -> bool:
        """See :meth:`SignOuts.has`."""
        with self._lock:
            return self._until.get(session_id, 0.0) > self._clock()


class SessionStore:
    """The browser sessions of the pages, sealed in their cookies.

    :param signouts: where sign-outs are kept (this process's memory by default).
    :param keys: the cookie keys, the current one first (a previous one after it, while the
        secret rotates); one drawn for this process when empty (with the shared state, give
        :func:`~sevdesk_mcp.shared.seal.derived_key` of the server secrets with purpose ``cookie``).
    :param https: whether the public URL is https (the cookie's name and ``Secure``).
    """

    def __init__(
        self,
        signouts: SignOuts | None = None,
        *,
        keys: Sequence[bytes] = (),
        https: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.https = https
        self._clock = clock
        self._signouts: SignOuts = signouts or MemorySignOuts(clock)
        drawn = (AESGCM.generate_key(bit_length=256),)
        self._aeads = tuple(AESGCM(k) for k in (keys or drawn))

    @property
    def cookie_name(self) -> str:
        """:returns: the session cookie's name."""
        return SECURE_COOKIE if self.https else COOKIE

    def start(self, account: str, account_name: str, person: str = "") -> Session:
        """:returns: a new session of ``person`` of ``account`` (nothing is stored: see the
        module)."""
        return Session(
            id=secrets.token_urlsafe(32),
            account=account,
            account_name=account_name,
            csrf=secrets.token_urlsafe(32),
            expires=self._clock() + SESSION_TTL_S,
            person=person,
        )

    def set_cookie(self, session: Session) -> str:
        """:returns: the ``Set-Cookie`` value that carries ``session`` sealed."""
        nonce = secrets.token_bytes(12)
        sealed = nonce + self._aeads[0].encrypt(nonce, msgspec.json.encode(session), _AD)
        value = base64.urlsafe_b64encode(sealed).decode().rstrip("=")
        return f"{self.cookie_name}={value}; {cookie_attributes(SESSION_TTL_S, https=self.https)}"

    def clear_cookie(self) -> str:
        """:returns: the ``Set-Cookie`` value that removes the session cookie."""
        return f"{self.cookie_name}=; {cookie_attributes(0, https=self.https)}"

    async def of(self, headers: Headers) -> Session | None:
        """:returns: the live session the request's one cookie carries (unexpired, not signed
        out).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        value = cookie(headers.get_all("cookie"), self.cookie_name)
        session = self._open(value) if value is not None else None
        if session is None or not table.live(session.expires, self._clock()):
            return None  # the sign-outs need not be asked (Rule 1)
        signed_out = await self._signouts.has(session.id)
        return session if table.admits(opened=True, live=True, signed_out=signed_out) else None

    async def end(self, session: Session) -> None:
        """Sign ``session`` out (on every instance sharing the sign-outs).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ttl_s = table.keep_s(session.expires, self._clock())
        if ttl_s is not None:
            await self._signouts.keep(session.id, ttl_s)

    def _open(self, value: str) -> Session | None:
        try:
            sealed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except (binascii.Error, ValueError):
            return None
        for aead in self._aeads:
            try:
                plain = aead.decrypt(sealed[:12], sealed[12:], _AD)
            except (ValueError, InvalidTag):
                continue
            try:
                return msgspec.json.decode(plain, type=Session)
            except msgspec.DecodeError:
                return None
        return None

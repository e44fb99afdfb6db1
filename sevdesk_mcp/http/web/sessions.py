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
instance's sign-out ends the session on all of them.

The cookie is ``SameSite=Strict``, ``HttpOnly``, ``Path=/``; ``__Host-`` and ``Secure`` over
https. Every form of a session carries its CSRF token (256 bits, compared in constant time).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from typing import ClassVar, Final, Protocol

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from sevdesk_mcp.http.messages import Headers
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

    def csrf_ok(self, given: str | None) -> bool:
        """:returns: whether a form's CSRF token is this session's."""
        return given is not None and hmac.compare_digest(given.encode(), self.csrf.encode())


class SignOuts(Protocol):
    """The sessions signed out before their expiry: this process's, or the shared state's."""

    async def add(self, session_id: str, until: float) -> None:
        """Record that ``session_id`` is signed out (kept until ``until``, its expiry).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...

    async def has(self, session_id: str) -> bool:
        """:returns: whether ``session_id`` was signed out.

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        ...


class MemorySignOuts:
    """The sign-outs of one process, kept until the sessions would have expired.

    :param clock: seconds since the epoch (injectable for tests).
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._until: dict[str, float] = {}

    async def add(self, session_id: str, until: float) -> None:
        """See :meth:`SignOuts.add`."""
        with self._lock:
            now = self._clock()
            if len(self._until) >= MAX_SIGNOUTS:
                self._until = {k: v for k, v in self._until.items() if v > now}
            self._until[session_id] = until

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
        return f"{self.cookie_name}={value}; {self.attributes(SESSION_TTL_S)}"

    def clear_cookie(self) -> str:
        """:returns: the ``Set-Cookie`` value that removes the session cookie."""
        return f"{self.cookie_name}=; {self.attributes(0)}"

    async def of(self, headers: Headers) -> Session | None:
        """:returns: the live session the request's one cookie carries (unexpired, not signed
        out).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        value = cookie(headers, self.cookie_name)
        session = self._open(value) if value is not None else None
        if session is None or session.expires <= self._clock():
            return None
        return None if await self._signouts.has(session.id) else session

    async def end(self, session: Session) -> None:
        """Sign ``session`` out (on every instance sharing the sign-outs).

        :raises StateUnavailableError: if the shared state cannot be reached.
        """
        await self._signouts.add(session.id, session.expires)

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

    def attributes(self, max_age_s: int) -> str:
        """:returns: the attributes of a cookie of this site (``SameSite=Strict``)."""
        secure = "; Secure" if self.https else ""
        return f"Path=/; Max-Age={max_age_s}; HttpOnly; SameSite=Strict{secure}"


def cookie(headers: Headers, name: str) -> str | None:
    """:returns: the value of the cookie ``name`` if the request sent it exactly once."""
    found = [
        value.strip()
        for header in headers.get_all("cookie")
        for key, sep, value in (part.strip().partition("=") for part in header.split(";"))
        if sep and key == name
    ]
    return found[0] if len(found) == 1 else None

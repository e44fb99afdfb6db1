"""Browser sessions of a sevDesk account, for the inbox and the file pages.

A session starts when the user consents on the OAuth consent page, or signs in on ``/signin``
with their sevDesk API token (checked with ``GET /SevClient``). It lives in memory for
:data:`SESSION_TTL_S` (12 hours) or until the user signs out; a restart ends every session.

The cookie holds only the session id, sealed with AES-256-GCM under a key drawn per process (so
it cannot be forged or read, and no cookie of an earlier process opens): ``SameSite=Strict``,
``HttpOnly``, ``Path=/``; ``__Host-`` and ``Secure`` over https. Every form of a session carries
its CSRF token (256 bits, compared in constant time).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from sevdesk_mcp.http.messages import Headers

SESSION_TTL_S: Final = 12 * 3600
MAX_SESSIONS: Final = 10_000
COOKIE: Final = "sevdesk_session"
SECURE_COOKIE: Final = "__Host-sevdesk_session"
_AD: Final = b"sevdesk-web-session-v1"


@dataclass(frozen=True, slots=True)
class Session:
    """One signed-in browser: the account, its name for the page, and the CSRF token."""

    id: str
    account: str
    account_name: str
    csrf: str
    expires: float

    def csrf_ok(self, given: str | None) -> bool:
        """:returns: whether a form's CSRF token is this session's."""
        return given is not None and hmac.compare_digest(given.encode(), self.csrf.encode())


class SessionStore:
    """The sessions of one process.

    :param https: whether the public URL is https (the cookie's name and ``Secure``).
    """

    def __init__(self, *, https: bool = False, clock: Callable[[], float] = time.time) -> None:
        self.https = https
        self._clock = clock
        self._aead = AESGCM(AESGCM.generate_key(bit_length=256))
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, Session] = OrderedDict()

    @property
    def cookie_name(self) -> str:
        """:returns: the session cookie's name."""
        return SECURE_COOKIE if self.https else COOKIE

    def start(self, account: str, account_name: str) -> Session:
        """:returns: a new session of ``account`` (the oldest is dropped beyond the cap)."""
        session = Session(
            id=secrets.token_urlsafe(32),
            account=account,
            account_name=account_name,
            csrf=secrets.token_urlsafe(32),
            expires=self._clock() + SESSION_TTL_S,
        )
        with self._lock:
            self._sessions[session.id] = session
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return session

    def set_cookie(self, session: Session) -> str:
        """:returns: the ``Set-Cookie`` value that carries ``session``'s sealed id."""
        nonce = secrets.token_bytes(12)
        sealed = nonce + self._aead.encrypt(nonce, session.id.encode(), _AD)
        value = base64.urlsafe_b64encode(sealed).decode().rstrip("=")
        return f"{self.cookie_name}={value}; {self.attributes(SESSION_TTL_S)}"

    def clear_cookie(self) -> str:
        """:returns: the ``Set-Cookie`` value that removes the session cookie."""
        return f"{self.cookie_name}=; {self.attributes(0)}"

    def of(self, headers: Headers) -> Session | None:
        """:returns: the live session whose sealed id the request's one cookie carries."""
        value = cookie(headers, self.cookie_name)
        if value is None:
            return None
        session_id = self._open(value)
        with self._lock:
            session = self._sessions.get(session_id or "")
            if session is not None and session.expires <= self._clock():
                del self._sessions[session.id]
                return None
            return session

    def end(self, session: Session) -> None:
        """Sign ``session`` out."""
        with self._lock:
            self._sessions.pop(session.id, None)

    def _open(self, value: str) -> str | None:
        try:
            sealed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
            return self._aead.decrypt(sealed[:12], sealed[12:], _AD).decode()
        except (binascii.Error, ValueError, InvalidTag, UnicodeDecodeError):
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

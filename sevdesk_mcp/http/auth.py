"""Authentication of ``/mcp``: the :class:`Authenticator` seam, and bearer mode.

Bearer mode: one shared secret, or two while rotating, compared as HMACs in constant time.

The presented token and every configured secret are each reduced to an HMAC-SHA256 under a key
drawn per process, and the digests are compared with :func:`hmac.compare_digest`. Comparing
fixed-length digests means neither the length nor a common prefix of a secret shows in the
timing; every configured secret is compared on every request, whichever one matches.

An authenticator returns who is asking (a :class:`Principal`), or ``None`` when one fixed
account serves every request (bearer mode); the router makes it the request's
:data:`CURRENT_PRINCIPAL` while the handler runs. OAuth mode's is ``oauth.verifier``.

In bearer mode there is no OAuth: the discovery paths clients try after a 401 answer 404 with
:data:`BEARER_DISCOVERY_MESSAGE` (issue 14), and the 401 says how to send the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Final, Protocol

from sevdesk_mcp.errors import HttpError
from sevdesk_mcp.http.messages import Headers
from sevdesk_mcp.safety.redact import Secret

CHALLENGE: Final = 'Bearer realm="mcp-server-sevdesk"'
INVALID_TOKEN_CHALLENGE: Final = f'{CHALLENGE}, error="invalid_token"'
MAX_TOKEN_CHARS: Final = 1024
DISCOVERY_PATHS: Final = frozenset(
    {
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    }
)
BEARER_DISCOVERY_MESSAGE: Final = (
    "This server does not use OAuth: it is protected by a static bearer secret "
    "(SEVDESK_HTTP_AUTH=bearer). Configure your client to send the header "
    "'Authorization: Bearer <secret>' with the secret the operator set in SEVDESK_HTTP_SECRET, "
    "instead of signing in."
)
NO_CREDENTIALS_MESSAGE: Final = (
    "Send Authorization: Bearer <secret>. This server uses a static bearer secret "
    "(SEVDESK_HTTP_SECRET), not OAuth: configure it in your client's headers."
)


class Principal(Protocol):
    """Who a request acts for, as an authenticator vouches for it."""

    @property
    def principal(self) -> str:
        """:returns: the key every piece of state of this caller is bound to."""
        ...


class Authenticator(Protocol):
    """Checks a request's credentials."""

    def check(self, headers: Headers) -> Principal | None:
        """:returns: the caller, or ``None`` when one fixed account serves every request.

        :raises HttpError: 401 with ``WWW-Authenticate`` if the credentials are not valid.
        """
        ...


CURRENT_PRINCIPAL: ContextVar[Principal | None] = ContextVar("principal", default=None)


class BearerAuth:
    """Checks ``Authorization: Bearer <secret>`` against the configured secrets.

    :param secrets: the current secret first, then the previous one while rotating.
    """

    def __init__(self, secrets: Sequence[Secret]) -> None:
        if not secrets:
            raise ValueError("bearer mode needs at least one secret")
        self._key = os.urandom(32)
        self._digests = tuple(self._digest(s.reveal()) for s in secrets)

    def _digest(self, value: str) -> bytes:
        return hmac.new(self._key, value.encode("utf-8"), hashlib.sha256).digest()

    def check(self, headers: Headers) -> None:
        """:returns: ``None``: one fixed account serves every request.

        :raises HttpError: 401 if the request carries no valid secret.
        """
        values = headers.get_all("authorization")
        scheme, _, token = (values[0] if len(values) == 1 else "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_CHARS:
            raise _unauthorized(CHALLENGE, NO_CREDENTIALS_MESSAGE)
        presented = self._digest(token)
        matches = [hmac.compare_digest(presented, digest) for digest in self._digests]
        if not any(matches):
            raise _unauthorized(INVALID_TOKEN_CHALLENGE, "The bearer secret is not valid.")


def _unauthorized(challenge: str, message: str) -> HttpError:
    return HttpError(401, message, headers=(("www-authenticate", challenge),))


def oauth_principal(account: str, grant: str) -> str:
    """:returns: ``oauth:<account>:<grant>``, what state of an OAuth caller is bound to."""
    return f"oauth:{account}:{grant}"


def oauth_account(principal: str) -> str | None:
    """:returns: the sevDesk account of an OAuth principal, ``None`` for any other."""
    kind, _, rest = principal.partition(":")
    account, sep, _ = rest.partition(":")
    return account if kind == "oauth" and sep and account else None


def oauth_grant(principal: str) -> str | None:
    """:returns: the grant id of an OAuth principal, ``None`` for any other."""
    kind, _, rest = principal.partition(":")
    account, sep, grant = rest.partition(":")
    return grant if kind == "oauth" and sep and account and grant else None

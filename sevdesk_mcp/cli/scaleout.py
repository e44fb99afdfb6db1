"""Several instances behind a load balancer: every store on the shared state (issue 25).

With ``SEVDESK_HTTP_STATE_URL`` set, :func:`shared_stores` opens the Redis connection and builds
each store of the HTTP stack and the safety runtime on it; the HTTP modes' wiring
(``cli.http``, ``cli.bearer``, ``cli.oauth``) hands them to the server factory, the web pages,
and the bearer or OAuth service, which see them only as
:class:`~sevdesk_mcp.http.service.serve.SharedBackend`. Without it nothing here is imported
and every store stays in this process (stdio, and one HTTP instance).

==================  ====================================  ====================================
state               in this process                       shared (Redis)
==================  ====================================  ====================================
grants, clients,    ``oauth.store.FileGrantStore``        ``oauth.redis_store``
codes, revocations
approvals, inbox    ``safety.approvals``                  ``safety.approvals_redis``
nonces              ``safety.nonces.MemoryNonceStore``    ``safety.nonces_redis``
record locks        ``safety.locks.RecordLocks``          ``safety.locks_redis`` (leases,
                                                          fencing)
uploads, downloads  ``safety.transfers``                  ``safety.transfers_redis`` (sealed)
browser sessions    ``web.sessions`` (process key)        cookie key from the secret, sign-outs
                                                          in ``web.sessions_redis``
sign-in attempts    ``web.attempts``                      ``web.attempts_redis``
rate limits         ``ratelimit.MemoryRateLimits``        ``ratelimit_shared``
2025-era sessions   ``sessions.MemorySessionStore``       ``sessions.redis_store`` (answers
                                                          routed by pub/sub)
sevDesk pacer       ``sevdesk.pacing.Pacer``              ``sevdesk.pacing_shared`` (``cli.run``
                                                          builds it: http never imports the
                                                          client)
==================  ====================================  ====================================

Nothing falls back to this process's state when Redis cannot be reached: the stores raise
:class:`~sevdesk_mcp.errors.StateUnavailableError`, answered as 503 (or as a tool error inside a
call), and ``/healthz`` answers 503 so the load balancer takes the instance out of rotation; it
stays 503 after Redis is back until the sessions' answer routing has subscribed again.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

import msgspec

from sevdesk_mcp.http.limits import Limits
from sevdesk_mcp.http.ratelimit import RateLimits
from sevdesk_mcp.http.ratelimit_shared import RedisRateLimits
from sevdesk_mcp.http.sessions.redis_store import RedisSessionStore
from sevdesk_mcp.http.settings import HttpSettings
from sevdesk_mcp.http.web.attempts_redis import RedisAttempts
from sevdesk_mcp.http.web.hub import WebHub
from sevdesk_mcp.http.web.sessions import SessionStore as WebSessions
from sevdesk_mcp.http.web.sessions_redis import RedisSignOuts
from sevdesk_mcp.mcp.state import RequestStateCodec
from sevdesk_mcp.safety.approval_local import Pages
from sevdesk_mcp.safety.approvals_redis import RedisApprovalStore
from sevdesk_mcp.safety.audit import AuditLog
from sevdesk_mcp.safety.locks_redis import RedisRecordLocks
from sevdesk_mcp.safety.nonces_redis import RedisNonceStore
from sevdesk_mcp.safety.runtime import SafetyRuntime
from sevdesk_mcp.safety.transfers_redis import RedisTransferStore
from sevdesk_mcp.shared.redis import SharedState, open_state
from sevdesk_mcp.shared.seal import derived_key


class SharedStores(msgspec.Struct, frozen=True):
    """The stores every instance shares, on one Redis connection.

    :param approvals: one store for the safety runtime and the inbox.
    :param sessions: the 2025-era sessions (``None`` with ``SEVDESK_HTTP_SESSIONS=off``); its
        routing task runs while the service serves (``HttpService.run``).
    """

    state: SharedState
    settings: HttpSettings
    approvals: RedisApprovalStore
    sessions: RedisSessionStore | None

    async def healthy(self) -> bool:
        """:returns: whether this instance can serve: Redis answers and, with shared sessions,
        the answer routing listens (until it has subscribed again after an outage, an answer
        for a call waiting here could not reach it: the load balancer keeps new requests away).
        """
        if not await self.state.ping():
            return False
        return self.sessions is None or self.sessions.router.listening

    def rates(self, limits: Limits, limiter: str = "clients") -> RateLimits:
        """:returns: the token buckets of ``limiter`` (client addresses, accounts, ...)."""
        return RedisRateLimits(self.state, limits, limiter=limiter)

    def codec(self) -> RequestStateCodec:
        """:returns: the sealer of MRTR request states, with a key every instance derives from
        the server secret (a state sealed on one instance opens on any other; its nonce is used
        once across all of them)."""
        return RequestStateCodec(derived_key(self.settings.secrets[0].reveal(), "request-state"))

    def account_key(self, token: str) -> str:
        """:returns: the name bearer mode's sevDesk account goes by in Redis (the pacer): an
        HMAC of the token under a key derived from the server secret, so Redis holds nothing
        a guessed token could be checked against."""
        key = derived_key(self.settings.secrets[0].reveal(), "account")
        return "token:" + hmac.new(key, token.encode("utf-8"), hashlib.sha256).hexdigest()

    def safety(self, audit: AuditLog, pages: Callable[[], Pages] | None) -> SafetyRuntime:
        """:returns: the safety runtime on the shared state (the audit log stays per instance:
        each writes its own lines, with the call id that ties them together)."""
        nonces = RedisNonceStore(self.state)
        locks = RedisRecordLocks(self.state)
        return SafetyRuntime(audit, nonces, approvals=self.approvals, locks=locks, pages=pages)

    def web(self, *, inbox: bool) -> WebHub:
        """:returns: the inbox and file pages' state on the shared state."""
        secrets = [s.reveal() for s in self.settings.secrets]
        files = self.settings.files
        return WebHub(
            files=files,
            inbox=inbox,
            approvals=self.approvals,
            transfers=RedisTransferStore(self.state) if files else None,
            sessions=WebSessions(
                RedisSignOuts(self.state), keys=[derived_key(s, "cookie") for s in secrets]
            ),
            attempts=RedisAttempts(self.state),
            signin_key=derived_key(secrets[0], "signin"),
        )


def shared_stores(settings: HttpSettings) -> SharedStores | None:
    """:returns: the shared stores of ``SEVDESK_HTTP_STATE_URL``, or ``None`` without one.

    :raises ConfigError: if the ``redis`` extra is not installed.
    """
    if settings.state_url is None:
        return None
    secrets = [s.reveal() for s in settings.secrets]
    state = open_state(settings.state_url, secrets, namespace=settings.state_namespace)
    sessions = RedisSessionStore(state) if settings.sessions else None
    return SharedStores(state, settings, RedisApprovalStore(state), sessions)

"""The fake sevDesk: one account in memory, answering requests as the real API does.

:class:`FakeSevdesk` is transport-neutral: :meth:`FakeSevdesk.handle` takes an
:class:`Incoming` request and returns an :class:`Outcome` (an answer, or "drop the connection",
or "time out after applying"). The httpx transport and the HTTP server only translate.

Per request, in this order: the next queued error answer or connection reset, authentication
(``Authorization: <token>``, no ``Bearer``, Q46), routing, the handler; then
``validation_as_500`` (Q32) and queued timeouts after a write (Q33).
"""

from __future__ import annotations

import http
import logging
import threading
from datetime import date
from typing import Final

import httpx
import msgspec

from sevdesk_mcp.fake.account_rules import SKR03, Chart
from sevdesk_mcp.fake.exchange import Action, Incoming, Outcome
from sevdesk_mcp.fake.faults import Failure, Faults, RecordedRequest
from sevdesk_mcp.fake.models import SevUser
from sevdesk_mcp.fake.router import Context
from sevdesk_mcp.fake.routes import ROUTER
from sevdesk_mcp.fake.store import Store
from sevdesk_mcp.fake.transport import FakeTransport
from sevdesk_mcp.fake.wire import FakeError, error_body
from sevdesk_mcp.jsontypes import JsonObject

log = logging.getLogger("sevdesk_mcp.fake")

DEFAULT_TODAY: Final = date(2026, 11, 27)
VALIDATION_STATUSES: Final = frozenset({400, 422})
MAX_RECORDED_REQUESTS: Final = 10_000
_KNOWN: Final = frozenset(s.value for s in http.HTTPStatus)
JSON_HEADERS: Final = (
    ("Content-Type", "application/json"),
    ("Access-Control-Allow-Origin", "*"),
)


class FakeSevdesk:
    """A stateful, deterministic, in-memory sevDesk account.

    :param token: the API token the fake accepts (sent raw in ``Authorization``).
    :param version: the bookkeeping system version reported by the account.
    :param today: the day treated as today (settable later through :attr:`today`).
    :param chart: the chart of accounts, ``"skr03"`` (the default) or ``"skr04"``.
    :raises ValueError: for an empty token.

    :ivar requests: every request received, oldest first (the newest
        :data:`MAX_RECORDED_REQUESTS` are kept).
    :ivar faults: the switchable failures.
    :ivar store: the account's state, for tests that arrange or inspect it directly.
    """

    def __init__(
        self,
        token: str,
        version: str = "2.0",
        *,
        today: date = DEFAULT_TODAY,
        chart: Chart = SKR03,
    ) -> None:
        if not token:
            raise ValueError("the fake needs a non-empty token")
        self.token = token
        self.user_tokens: set[str] = set()  # further users of the same company (add_user)
        self.store = Store(today, version, chart)
        self.faults = Faults()
        self.requests: list[RecordedRequest] = []
        self._lock = threading.RLock()
        self.store.users.insert(
            SevUser(
                username="owner@example.com",
                firstName="Erika",
                lastName="Mustermann",
                fullname="Erika Mustermann",
                email="owner@example.com",
            )
        )

    @property
    def today(self) -> date:
        """The day the fake treats as today (drives "now", overdue checks and timestamps)."""
        return self.store.today

    @today.setter
    def today(self, value: date) -> None:
        self.store.today = value

    def add_user(self, token: str) -> None:
        """Accept ``token`` too: the API token of another user of the same company (sevDesk
        issues one token per user; every user sees the same books).

        :raises ValueError: for an empty token.
        """
        if not token:
            raise ValueError("a user needs a non-empty token")
        self.user_tokens.add(token)

    def transport(self) -> httpx.AsyncBaseTransport:
        """:returns: an httpx transport that answers from this fake."""
        return FakeTransport(self)

    def handle(self, incoming: Incoming) -> Outcome:
        """Answer one request, applying the queued faults.

        :returns: the outcome for the transport to carry out.
        """
        failure = self.faults.take_failure()
        if failure is not None:
            self._record(incoming, applied=False)
            return Outcome(Action.RESET) if failure.reset else _failure_outcome(failure)
        with self._lock:
            before = self.store.revision
            status, payload, headers = self._dispatch(incoming)
            applied = self.store.revision != before
            self._record(incoming, applied=applied)
        if applied and self.faults.take_timeout():
            return Outcome(Action.TIMEOUT)
        return Outcome(Action.ANSWER, status, msgspec.json.encode(payload), JSON_HEADERS + headers)

    def _record(self, incoming: Incoming, *, applied: bool) -> None:
        with self._lock:
            self.requests.append(
                RecordedRequest(
                    incoming.method, incoming.path, dict(incoming.query), incoming.body, applied
                )
            )
            if len(self.requests) > MAX_RECORDED_REQUESTS:  # a long-running served demo
                del self.requests[: len(self.requests) - MAX_RECORDED_REQUESTS]

    def _dispatch(self, incoming: Incoming) -> tuple[int, JsonObject, tuple[tuple[str, str], ...]]:
        try:
            self._authenticate(incoming)
            handler, params = ROUTER.match(incoming.method, incoming.path)
            ctx = Context(
                self.store,
                incoming.method,
                incoming.path,
                incoming.query,
                incoming.body,
                incoming.headers.get("content-type", "application/json"),
                params,
                self.faults,
            )
            reply = handler(ctx)
        except FakeError as exc:
            return self._error_status(exc), exc.body(), ()
        except Exception:
            log.exception("the fake sevDesk failed on %s %s", incoming.method, incoming.path)
            return 500, error_body(500, "Internal Server Error", None, []), ()
        return reply.status, reply.payload, reply.headers

    def _authenticate(self, incoming: Incoming) -> None:
        given = incoming.headers.get("authorization")
        if given != self.token and given not in self.user_tokens:
            raise FakeError(401, "Authentication required")

    def _error_status(self, exc: FakeError) -> int:
        if self.faults.validation_as_500 and exc.http_status in VALIDATION_STATUSES:
            return 500
        return exc.http_status


def _failure_outcome(failure: Failure) -> Outcome:
    phrase = http.HTTPStatus(failure.status).phrase if failure.status in _KNOWN else "Error"
    body = msgspec.json.encode(error_body(failure.status, phrase, None, []))
    headers: tuple[tuple[str, str], ...] = JSON_HEADERS
    if failure.retry_after is not None:
        headers = (*headers, ("Retry-After", failure.retry_after))
    return Outcome(Action.ANSWER, failure.status, body, headers)
